"""Readers of a dump folder shared by the PyTorch and MindSpore tests: its JSON files, its
step/rank folders and the tensor records inside an entry."""
import json
import math
import os


def load_json(path):
    with open(path) as f:
        return json.load(f)


def rank_dir(dump_path, step=0, rank=""):
    return os.path.join(str(dump_path), f"step{step}", f"rank{rank}")


def load_dump(dump_path, step=0, rank=""):
    """(dump.json, stack.json, construct.json) of one step and rank."""
    d = rank_dir(dump_path, step, rank)
    return (load_json(os.path.join(d, "dump.json")), load_json(os.path.join(d, "stack.json")),
            load_json(os.path.join(d, "construct.json")))


def rank_dirs(root):
    """Every folder under `root` holding a dump.json, relative to `root`, sorted."""
    return sorted(os.path.relpath(dp, root) for dp, _, fn in os.walk(root) if "dump.json" in fn)


def step_dirs(root):
    return sorted(d for d in os.listdir(root) if d.startswith("step"))


def has_dtype_and_shape(node):
    return "dtype" in node and "shape" in node


def tensor_records(node, path="", is_tensor=has_dtype_and_shape):
    """(path, record) of every tensor record under `node`, paths like ".input_args.0"."""
    if isinstance(node, dict):
        if is_tensor(node):
            yield path, node
        else:
            for k, v in node.items():
                yield from tensor_records(v, f"{path}.{k}", is_tensor)
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from tensor_records(v, f"{path}.{i}", is_tensor)


def same_statistic(a, b, rel):
    """A statistic of one path against the other's: None, bools and ints equal and of the same
    type, NaN for NaN, floats within `rel`."""
    if a is None or isinstance(a, bool) or isinstance(a, int):
        return a == b and type(a) is type(b)
    if math.isnan(b):
        return isinstance(a, float) and math.isnan(a)
    return isinstance(a, float) and math.isclose(a, b, rel_tol=rel, abs_tol=0)
