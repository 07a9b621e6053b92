"""1.2.1's names of what the monitor watches: parameters and modules as "{vpp_stage}:{name}",
shortened ("squash_name", on by default) to what follows layers./embeddings., and the tags of the
statistics "{name}/rank{rank}/{what}"."""
import re

VPP_SEP = ":"
_SQUASH = [re.compile(p) for p in (r"layers?\.(.*)", r"embeddings?\.(.*)", r"final.*", r"output.*", r"norm.*")]


def squash_param_name(name, enable=True):
    if not enable:
        return name
    for pattern in _SQUASH:
        found = pattern.findall(name)
        if found:
            return found[0] or name
    return name


def tag(name, what, rank):
    return f"{name}/rank{rank}/{what}"
