"""Installs the API wrappers of one framework from its API catalogue and removes them again;
remembers the originals, and can put them back for a while (MindSpore's jit compilation)."""
from msprobe.core import log
from msprobe.core.api_catalogue import SECTIONS, load_api_catalogue, resolve_owner


class ApiPatcher:
    def __init__(self, framework, make_wrapper, api_list_path=None):
        """make_wrapper(section, dotted_name, original, api_name) -> the wrapper to install, or None
        to leave the API alone."""
        self.framework = framework
        self.make_wrapper = make_wrapper
        self.api_list_path = api_list_path
        self.originals = []  # (owner, attr, original)
        self.installed = False

    def install(self):
        if self.installed:
            return
        sections = SECTIONS[self.framework]
        catalogue = load_api_catalogue(self.framework, self.api_list_path)
        for section, names in catalogue.items():
            prefix, owner_paths = sections[section]
            for owner in filter(None, map(resolve_owner, owner_paths)):
                for name in dict.fromkeys(names):
                    self._patch(owner, section, name, f"{prefix}.{name}")
        self.installed = True

    def _patch(self, owner, section, dotted, api_name):
        parts = dotted.split(".")
        for p in parts[:-1]:
            owner = getattr(owner, p, None)
            if owner is None:
                return
        attr = parts[-1]
        original = getattr(owner, attr, None)
        if not callable(original) or hasattr(original, "__msprobe_original__"):
            return
        wrapper = self.make_wrapper(section, dotted, original, api_name)
        if wrapper is None:
            return
        wrapper.__msprobe_original__ = original
        try:
            setattr(owner, attr, wrapper)
        except (AttributeError, TypeError):
            log.warning(f"cannot wrap {api_name}; it is not dumped")
            return
        self.originals.append((owner, attr, original))

    def uninstall(self):
        for owner, attr, original in reversed(self.originals):
            try:
                setattr(owner, attr, original)
            except (AttributeError, TypeError):
                pass
        self.originals.clear()
        self.installed = False

    def suspended(self):
        """Context manager: the original APIs are in place inside it."""
        return _Suspended(self)


class _Suspended:
    __slots__ = ("patcher", "saved")

    def __init__(self, patcher):
        self.patcher = patcher
        self.saved = None

    def __enter__(self):
        self.saved = []
        for owner, attr, _ in self.patcher.originals:
            self.saved.append((owner, attr, owner.__dict__.get(attr) if isinstance(owner, type)
                               else getattr(owner, attr)))
        for owner, attr, original in self.patcher.originals:
            setattr(owner, attr, original)
        return self

    def __exit__(self, *exc):
        for owner, attr, wrapper in self.saved:
            if wrapper is not None:
                setattr(owner, attr, wrapper)
        return False
