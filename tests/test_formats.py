"""encode_pt / encode_npy against the real readers: torch.load(weights_only=True), numpy.load,
zipfile; and byte for byte against torch.save / numpy.save."""
import io
import struct
import zipfile
import zlib

import numpy as np
import pytest
import torch

from msprobe import _core

DTYPES = [
    torch.float64, torch.float32, torch.float16, torch.bfloat16,
    torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8, torch.bool,
    torch.complex64, torch.complex128,
]
SHAPES = [(), (0, 3), (5,), (2, 3), (3, 1, 4), (2, 3, 4, 5), (1, 0), (7, 1)]


def make(shape, dtype, seed=0):
    g = torch.Generator().manual_seed(seed)
    if dtype == torch.bool:
        return torch.rand(shape, generator=g) > 0.5
    if dtype.is_complex:
        return torch.randn(shape, dtype=dtype, generator=g) * 100
    if dtype.is_floating_point:
        return (torch.randn(shape, dtype=torch.float64, generator=g) * 100).to(dtype)
    info = torch.iinfo(dtype)
    return torch.randint(info.min, info.max, shape, dtype=torch.int64, generator=g).to(dtype)


def save_pt(tmp_path, t, name="x", requires_grad=False):
    data = _core.encode_pt(t, name, requires_grad)
    assert isinstance(data, bytes)
    path = tmp_path / f"{name}.pt"
    path.write_bytes(data)
    return path


def load_pt(path, **kw):
    return torch.load(path, weights_only=True, **kw)


def check_pt(tmp_path, t, name="x", requires_grad=False):
    path = save_pt(tmp_path, t, name, requires_grad)
    got = load_pt(path)
    assert got.dtype == t.dtype
    assert got.shape == t.shape
    assert got.device.type == "cpu"
    assert got.is_contiguous()
    assert got.stride() == t.contiguous().stride()
    assert got.requires_grad == requires_grad
    assert torch.equal(got.detach(), t.detach())
    with zipfile.ZipFile(path) as z:
        assert z.testzip() is None  # every CRC right
    return got


def check_npy(tmp_path, t):
    path = tmp_path / "x.npy"
    path.write_bytes(_core.encode_npy(t))
    got = np.load(path, allow_pickle=False)
    if t.dtype == torch.bfloat16:
        want = t.float().numpy()
    else:
        want = t.resolve_conj().numpy()
    assert got.dtype == want.dtype
    assert got.shape == want.shape
    np.testing.assert_array_equal(got, want)
    return got


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_roundtrip_every_dtype_and_shape(tmp_path, dtype, shape):
    t = make(shape, dtype)
    check_pt(tmp_path, t)
    check_npy(tmp_path, t)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_non_contiguous_views(tmp_path, dtype):
    base = make((6, 8, 5), dtype, seed=1)
    views = {
        "transpose": base.transpose(0, 2),
        "t2d": base[:, :, 0].t(),
        "step": base[::2, 1::3, ::2],
        "permute": base.permute(1, 2, 0),
        "narrow_last": base[..., 1:4],
        "expand": base[:1, :1, :].expand(3, 4, 5),  # stride 0
        "offset": base[3:, 2:],
    }
    for name, v in views.items():
        assert not v.is_contiguous() or name == "offset"
        check_pt(tmp_path, v, name)
        check_npy(tmp_path, v)


def test_numpy_inputs_negative_strides(tmp_path):
    a = np.arange(60, dtype=np.float32).reshape(3, 4, 5)
    for v in (a[::-1], a[:, ::-2], a.T, a[1]):
        path = tmp_path / "n.pt"
        path.write_bytes(_core.encode_pt(v, "n"))
        got = load_pt(path)
        np.testing.assert_array_equal(got.numpy(), v)
        (tmp_path / "n.npy").write_bytes(_core.encode_npy(v))
        np.testing.assert_array_equal(np.load(tmp_path / "n.npy", allow_pickle=False), v)


def test_requires_grad_recorded(tmp_path):
    t = torch.randn(4, 3, requires_grad=True)
    got = check_pt(tmp_path, t, requires_grad=True)
    assert got.requires_grad and got.is_leaf
    got = check_pt(tmp_path, t.detach(), requires_grad=False)
    assert not got.requires_grad
    # Not representable for integer tensors: the flag is dropped, the file still loads.
    path = save_pt(tmp_path, torch.arange(3), requires_grad=True)
    assert not load_pt(path).requires_grad


def test_special_float_values_bit_exact(tmp_path):
    vals = [0.0, -0.0, float("inf"), float("-inf"), float("nan"), 1e-45, 65504.0, 1e-8, 3.0e38]
    for dtype, itype in ((torch.float32, torch.int32), (torch.float16, torch.int16),
                         (torch.bfloat16, torch.int16), (torch.float64, torch.int64)):
        t = torch.tensor(vals, dtype=torch.float64).to(dtype)
        got = load_pt(save_pt(tmp_path, t))
        assert torch.equal(got.view(itype), t.view(itype))
        npy = np.load(io.BytesIO(_core.encode_npy(t)), allow_pickle=False)
        want = t.float().numpy() if dtype == torch.bfloat16 else t.numpy()
        np.testing.assert_array_equal(npy.view(f"u{npy.itemsize}"), want.view(f"u{want.itemsize}"))


def test_conj_and_neg_views_resolved(tmp_path):
    c = make((3, 4), torch.complex64, seed=3)
    check_pt(tmp_path, c.conj(), "conj")
    check_npy(tmp_path, c.conj())


def test_large_tensor(tmp_path):
    t = torch.randn(1024, 1024, 5)  # 20 MiB: many CRC blocks
    check_pt(tmp_path, t)
    check_pt(tmp_path, t.transpose(0, 1), "tr")
    check_npy(tmp_path, t)
    b = t.to(torch.bfloat16)
    check_pt(tmp_path, b, "bf")
    check_npy(tmp_path, b)


def _crc_le(b):
    return struct.pack("<I", zlib.crc32(b))


@pytest.mark.parametrize("shape,dtype", [
    ((2, 3), torch.float32), ((), torch.float64), ((0, 3), torch.float32),
    ((4, 70000, 1, 1), torch.bool), ((3, 5, 7), torch.bfloat16), ((300,), torch.complex128),
])
@pytest.mark.parametrize("requires_grad", [False, True])
def test_bytes_identical_to_torch_save(tmp_path, shape, dtype, requires_grad):
    t = make(shape, dtype).requires_grad_(requires_grad and (dtype.is_floating_point or dtype.is_complex))
    name = "Functional.conv2d.0.forward.input.0"
    ref_path = tmp_path / f"{name}.pt"
    torch.save(t, ref_path)
    ref = ref_path.read_bytes()
    ours = _core.encode_pt(t, name, t.requires_grad)
    assert len(ours) == len(ref)
    # Everything but the random serialization id (40 digits) and its CRC (descriptor, directory).
    rid = zipfile.ZipFile(io.BytesIO(ref)).read(f"{name}/.data/serialization_id")
    oid = zipfile.ZipFile(io.BytesIO(ours)).read(f"{name}/.data/serialization_id")
    assert len(rid) == len(oid) == 40 and oid.isdigit()
    assert ref.count(_crc_le(rid)) == 2
    assert ref.replace(rid, oid).replace(_crc_le(rid), _crc_le(oid)) == ours


def test_loads_with_mmap_and_calculated_offsets(tmp_path):
    t = make((33, 17), torch.float32)
    path = save_pt(tmp_path, t)
    assert torch.equal(load_pt(path, mmap=True), t)
    from torch.utils.serialization import config
    old = config.load.calculate_storage_offsets
    config.load.calculate_storage_offsets = True
    try:
        assert torch.equal(load_pt(path, mmap=True), t)
        assert torch.equal(load_pt(path), t)
    finally:
        config.load.calculate_storage_offsets = old


@pytest.mark.parametrize("dtype", [d for d in DTYPES if d != torch.bfloat16], ids=str)
@pytest.mark.parametrize("shape", [(), (3,), (0, 3), (2, 3, 4), (10 ** 6, 0), (1,) * 35 + (0,)], ids=str)
def test_npy_bytes_identical_to_numpy_save(dtype, shape):
    a = make(shape, dtype).numpy()
    buf = io.BytesIO()
    np.save(buf, a)
    assert _core.encode_npy(a) == buf.getvalue()
    assert _core.encode_npy(torch.from_numpy(a)) == buf.getvalue()


def test_bad_inputs():
    with pytest.raises(TypeError):
        _core.encode_pt([1, 2, 3], "x")
    with pytest.raises(TypeError):
        _core.encode_npy("not a tensor")
    with pytest.raises(Exception, match="archive_name"):
        _core.encode_pt(torch.zeros(2), "a/b")
    with pytest.raises(Exception, match="archive_name"):
        _core.encode_pt(torch.zeros(2), "")


