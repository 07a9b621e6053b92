"""Comparisons of our dumps with the ORIGINAL 1.2.1's golden dumps, shared by the parity and
overflow tests of PyTorch and MindSpore."""
import json
import os

from dump_files import load_json, rank_dirs, tensor_records

# 1.2.1's PyTorch module hooks at mix (torch's full backward hooks) call Tensor.view_as on every
# tensor they wrap, and its wrapper records the call; ours add no autograd node and make no such
# call (docs/compatibility.md, "Module backward"). The golden's entries, construct keys, stack keys
# and tensor files of those calls are left out of the comparison.
HOOK_VIEW_AS = "Tensor.view_as."


def without_hook_view_as(items):
    """A mapping, or a list of names, without 1.2.1's hook-made Tensor.view_as entries or files."""
    if isinstance(items, dict):
        return {k: v for k, v in items.items() if not k.startswith(HOOK_VIEW_AS)}
    return [n for n in items if not n.startswith(HOOK_VIEW_AS)]


def matching_tensor_records(ours_data, orig_data):
    """(entry, path, ours, orig) of every tensor record of the original's entries, once checked
    that our entry has the same keys in order, the same tensor paths, and each record the same
    keys in order."""
    for entry, value in orig_data.items():
        mine = ours_data[entry]
        assert list(mine) == list(value), entry
        ot, mt = dict(tensor_records(value)), dict(tensor_records(mine))
        assert set(ot) == set(mt), entry
        for path, t in ot.items():
            u = mt[path]
            assert list(u) == list(t), (entry, path)
            yield entry, path, u, t


def assert_same_construct_and_stack(ours_dir, orig_dir, stack_keys=set, original=lambda items: items):
    """construct.json equal as a mapping; stack.json with the same keys (`list`: in order).
    original: what of the golden's files is compared (without_hook_view_as for PyTorch)."""
    assert load_json(os.path.join(ours_dir, "construct.json")) == \
        original(load_json(os.path.join(orig_dir, "construct.json")))
    assert stack_keys(load_json(os.path.join(ours_dir, "stack.json"))) == \
        stack_keys(original(load_json(os.path.join(orig_dir, "stack.json"))))


def original_tensor_files(orig_rank_dir, ours_data_dir):
    """The names in the original's tensor_files.txt; None, once checked that we wrote no
    dump_tensor_data either, where the original saved no tensor."""
    listing = os.path.join(orig_rank_dir, "tensor_files.txt")
    if not os.path.exists(listing):
        assert not os.path.exists(ours_data_dir)
        return None
    with open(listing) as f:
        return f.read().split()


def tensor_file_listings(ours_root, orig_root):
    """(rank folder relative to the roots, our dump_tensor_data, the original's file names) of each
    rank where the original saved tensors, once checked that we saved none where it saved none."""
    for rel in rank_dirs(orig_root):
        data_dir = os.path.join(ours_root, rel, "dump_tensor_data")
        expected = original_tensor_files(os.path.join(orig_root, rel), data_dir)
        if expected is not None:
            yield rel, data_dir, expected


def case_runs(tmp_path_factory, cases, script, run_python):
    """runs(case name) -> (work folder, CompletedProcess) of `script` run on a case of
    cases.json (its config and arguments) in a folder of its own, once per test module."""
    done = {}

    def runs(name):
        if name not in done:
            work = tmp_path_factory.mktemp(name)
            case = cases[name]
            (work / "config.json").write_text(json.dumps(case["config"]))
            done[name] = (work, run_python(script, "--config", "config.json", *case["args"], cwd=work))
        return done[name]
    return runs


def line_of(path, text):
    """Number of the first line of `path` containing `text`."""
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if text in line:
                return n
    raise AssertionError(text)
