"""Sanity checks of the golden fixtures produced with the original msprobe 1.2.1 and of the API list.

These tests need neither torch nor our build: they only check that the checked-in files are
complete and consistent, so that parity tests comparing our dumps against them can rely on them.
"""
import json
import os

import pytest
import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
FIXTURES = os.path.join(REPO, "tests", "fixtures", "original_1.2.1")
CONFIGS = os.path.join(HERE, "configs")
WRAP_YAML = os.path.join(REPO, "python", "msprobe", "pytorch", "support_wrap_ops.yaml")

CONFIG_NAMES = sorted(fn[:-5] for fn in os.listdir(CONFIGS) if fn.endswith(".json"))


def rank_dirs(name):
    root = os.path.join(FIXTURES, name)
    for step in sorted(os.listdir(root)):
        if not step.startswith("step"):
            continue
        for rank in sorted(os.listdir(os.path.join(root, step))):
            yield step, os.path.join(root, step, rank)


def load(path):
    with open(path) as f:
        return json.load(f)  # the original writes NaN/Infinity tokens; json accepts them


@pytest.mark.parametrize("name", CONFIG_NAMES)
def test_fixture_present_and_consistent(name):
    config = load(os.path.join(CONFIGS, name + ".json"))
    dirs = list(rank_dirs(name))
    expected_steps = ["step1"] if config["step"] == [1] else ["step0", "step1"]
    assert [step for step, _ in dirs] == expected_steps
    for _, rank_dir in dirs:
        dump = load(os.path.join(rank_dir, "dump.json"))
        stack = load(os.path.join(rank_dir, "stack.json"))
        construct = load(os.path.join(rank_dir, "construct.json"))
        assert list(dump) == ["task", "level", "framework", "dump_data_dir", "data"]
        assert dump["task"] == config["task"] and dump["level"] == config["level"]
        assert dump["framework"] == "pytorch"
        assert dump["data"]
        # stack entries are forward entries only
        assert all(".forward" in key for key in stack)
        if config["level"] == "L1":
            assert construct == {}
        else:
            assert set(construct) == {k for k in dump["data"] if not k.endswith("parameters_grad")}
        if config["task"] == "tensor":
            with open(os.path.join(rank_dir, "tensor_files.txt")) as f:
                files = f.read().split()
            names = set()

            def walk(node):
                if isinstance(node, dict):
                    if "data_name" in node:
                        names.add(node["data_name"])
                    for value in node.values():
                        walk(value)
                elif isinstance(node, list):
                    for value in node:
                        walk(value)

            walk(dump["data"])
            assert names == set(files)


def test_fixture_paths_are_placeholders():
    for dirpath, _, filenames in os.walk(FIXTURES):
        for fn in filenames:
            if fn.endswith(".json"):
                with open(os.path.join(dirpath, fn)) as f:
                    text = f.read()
                assert "/work/" not in text and "/tmp/" not in text, os.path.join(dirpath, fn)


def test_support_wrap_ops_yaml():
    with open(WRAP_YAML) as f:
        data = yaml.safe_load(f)
    assert list(data) == ["functional", "tensor", "torch", "_VF", "torch_npu", "aten", "distributed"]
    counts = {key: len(value) for key, value in data.items()}
    assert counts == {"functional": 126, "tensor": 439, "torch": 488, "_VF": 1, "torch_npu": 87,
                      "aten": 726, "distributed": 17}
    for key, names in data.items():
        assert all(isinstance(n, str) and n for n in names), key
        # the original lists npu_roi_align twice under torch_npu; kept as is
        assert len(names) - len(set(names)) == (1 if key == "torch_npu" else 0), key
    for name in ("__getitem__", "__setitem__", "relu_", "add_", "sum", "view_as", "argmax"):
        assert name in data["tensor"]
    for name in ("cat", "ones_like", "full", "where", "linalg.norm"):
        assert name in data["torch"]
    for name in ("linear", "cross_entropy", "relu"):
        assert name in data["functional"]
    for name in ("float", "to", "clone", "detach", "item"):
        assert name not in data["tensor"]
