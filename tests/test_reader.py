"""The C++ dump reader through its thin binding (msprobe._core.reader): dump.json entries against
json.load on the golden dumps, torn files, side files, and tensor files written by torch.save, by
our encoder and by the original 1.2.1, loaded without torch and compared with torch.load."""
import glob
import json
import math
import os

import numpy
import pytest
import torch

from msprobe import _core

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
GOLDEN = sorted(glob.glob(os.path.join(FIXTURES, "original_1.2.1*", "*", "step*", "rank*", "dump.json")))
reader = _core.reader


def same(a, b):
    """json.load equality with NaN equal to NaN."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def test_golden_dumps_read_as_json_load_reads_them():
    assert len(GOLDEN) >= 20
    for path in GOLDEN:
        with open(path) as f:
            doc = json.load(f)
        header, entries, note = reader.read_dump_entries(path)
        assert note is None, path
        assert [n for n, _ in entries] == list(doc["data"]), path
        assert all(same(rec, doc["data"][n]) for n, rec in entries), path
        assert (header["task"], header["level"], header["framework"]) == \
            (doc["task"], doc["level"], doc["framework"])
        assert header["dump_data_dir"] == doc["dump_data_dir"]
        assert header["has_real_data"] == bool(doc["dump_data_dir"])
        assert header["folder"] == os.path.dirname(path)


def test_torn_dump_keeps_complete_entries_and_says_so(tmp_path):
    path = os.path.join(FIXTURES, "original_1.2.1", "mix_statistics", "step0", "rank", "dump.json")
    text = open(path, "rb").read()
    _, all_entries, _ = reader.read_dump_entries(path)
    # Entries close with "\n  }" in json.dump(indent=1) output; cut inside the 5th and the last.
    ends = [i + 4 for i in range(len(text)) if text.startswith(b"\n  }", i)]
    for k in (4, len(ends) - 1):
        cut = ends[k - 1] + (ends[k] - ends[k - 1]) // 2
        torn = tmp_path / f"cut{k}.json"
        torn.write_bytes(text[:cut])
        header, entries, note = reader.read_dump_entries(str(torn))
        assert [n for n, _ in entries] == [n for n, _ in all_entries[:k]]
        assert header["level"] == "mix"
        assert note.startswith(f"{torn}: cut at byte {cut}; kept {k} entries, dropped the incomplete entry "
                               f"'{all_entries[k][0]}'"), note
        assert "\n" not in note


def test_malformed_dump_is_one_line_with_position(tmp_path):
    bad = tmp_path / "dump.json"
    bad.write_text('{\n "data": {\n  "a.forward": {"x": 1},\n  "b.forward": {"x": 1,, }\n }\n}')
    with pytest.raises(_core.MsprobeFileError, match=r"dump.json: line 4 column \d+: "):
        reader.read_dump_entries(str(bad))
    with pytest.raises(_core.MsprobeFileError, match="no such file"):
        reader.read_dump_entries(str(tmp_path / "none.json"))


def test_side_files_match_json_load():
    for rank in glob.glob(os.path.join(FIXTURES, "original_1.2.1*", "*", "step0", "rank*")):
        with open(os.path.join(rank, "stack.json")) as f:
            stack = json.load(f)
        with open(os.path.join(rank, "construct.json")) as f:
            construct = json.load(f)
        got_stack, note = reader.read_stack_json(os.path.join(rank, "stack.json"))
        assert note is None and got_stack == stack, rank
        got_construct, note = reader.read_construct_json(os.path.join(rank, "construct.json"))
        assert note is None
        assert got_construct == [(k, v if v is not None else "") for k, v in construct.items()], rank


CASES = {
    "f32": lambda: torch.randn(3, 4), "view": lambda: torch.arange(24.).reshape(4, 6)[:, 1:4],
    "transposed": lambda: torch.randn(3, 5).t(), "bf16": lambda: torch.randn(3, 5).bfloat16(),
    "f16": lambda: torch.randn(7).half(), "f64": lambda: torch.randn(2, 2, dtype=torch.float64),
    "i8": lambda: torch.tensor([-3, 4], dtype=torch.int8), "u8": lambda: torch.tensor([250, 1], dtype=torch.uint8),
    "i16": lambda: torch.tensor([-300], dtype=torch.int16), "i32": lambda: torch.tensor([7, -7], dtype=torch.int32),
    "i64": lambda: torch.tensor([1 << 40]), "bool": lambda: torch.tensor([True, False]),
    "c64": lambda: torch.randn(4, dtype=torch.complex64), "c128": lambda: torch.randn(2, dtype=torch.complex128),
    "zero_dim": lambda: torch.tensor(3.5), "empty": lambda: torch.empty(0, 3),
    "nan": lambda: torch.tensor([1.0, float("nan"), -float("inf")]),
    "grad": lambda: torch.ones(3, requires_grad=True),
}


def raw(t):
    return t.detach().contiguous().reshape(-1).view(torch.uint8)


@pytest.mark.parametrize("writer", ["torch.save", "ours"])
def test_tensor_store_reads_pt_files_like_torch_load(tmp_path, writer):
    store = reader.TensorStore(str(tmp_path))
    for name, make in CASES.items():
        value = make()
        path = tmp_path / f"{name}.pt"
        if writer == "torch.save":
            torch.save(value, path)
        else:
            path.write_bytes(_core.encode_pt(value.detach(), name, value.requires_grad))
        expect = torch.load(path, weights_only=True)
        array, requires_grad = store.load(f"{name}.pt")
        got = torch.from_dlpack(array)
        assert got.dtype == expect.dtype and got.shape == expect.shape, name
        assert got.stride() == expect.stride(), name
        assert requires_grad == expect.requires_grad, name
        assert torch.equal(raw(got), raw(expect)), name
        if got.dtype not in (torch.bfloat16, torch.bool) and got.numel():
            assert numpy.array_equal(numpy.asarray(array), expect.detach().numpy(), equal_nan=True), name


def test_tensor_store_reads_121_and_mindspore_files():
    pt_dir = os.path.join(FIXTURES, "original_1.2.1", "mix_tensor", "step0", "rank", "dump_tensor_data")
    store = reader.TensorStore(pt_dir)
    names = sorted(os.listdir(pt_dir))
    assert names
    for name in names:  # written by 1.2.1's torch.save(t.clone().contiguous().detach())
        expect = torch.load(os.path.join(pt_dir, name), weights_only=True)
        got = torch.from_dlpack(store.load(name)[0])
        assert got.dtype == expect.dtype and torch.equal(raw(got), raw(expect)), name
    npy_dir = os.path.join(FIXTURES, "original_1.2.1_mindspore", "mix_tensor", "step0", "rank", "dump_tensor_data")
    store = reader.TensorStore(npy_dir)
    for name in sorted(os.listdir(npy_dir))[:20]:
        expect = numpy.load(os.path.join(npy_dir, name), allow_pickle=False)
        got = numpy.asarray(store.load(name)[0])
        assert got.dtype == expect.dtype and numpy.array_equal(got, expect, equal_nan=True), name


def test_tensor_store_confines_names(tmp_path):
    inside = tmp_path / "dump_tensor_data"
    inside.mkdir()
    torch.save(torch.ones(2), tmp_path / "secret.pt")
    os.symlink(tmp_path / "secret.pt", inside / "escape.pt")
    store = reader.TensorStore(str(inside))
    for name, message in [("../secret.pt", "refused: only a plain file name"), (str(tmp_path / "secret.pt"),
                          "refused: only a plain file name"), ("escape.pt", "outside"),
                          ("missing.pt", "tensor file not found")]:
        with pytest.raises(_core.MsprobeFileError, match=message) as e:
            store.load(name)
        assert "\n" not in str(e.value)
    torch.save({"a": torch.ones(1)}, inside / "dict.pt")
    with pytest.raises(reader.PtUnsupported, match="dict.pt: not a single-tensor torch.save file"):
        store.load("dict.pt")
    assert store.resolve("dict.pt") == os.path.realpath(inside / "dict.pt")
