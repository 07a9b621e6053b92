"""msprobe._core.tensor_stats / crc32 against torch and zlib (real torch, CPU)."""
import math
import zlib

import numpy as np
import pytest

torch = pytest.importorskip("torch")
from msprobe import _core  # noqa: E402

FLOAT_DTYPES = [torch.float64, torch.float32, torch.float16, torch.bfloat16]
INT_DTYPES = [torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8]
COMPLEX_DTYPES = [torch.complex64, torch.complex128]
SIZES = [1, 7, 100, 10007]


def expected_md5(t):
    t = t.detach().resolve_conj().resolve_neg().contiguous()
    if t.dtype == torch.bfloat16:
        t = t.float()
    return f"{zlib.crc32(t.numpy().tobytes()):08x}"


def close(a, b, scale=1.0):
    return math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-12 * scale)


def check_real(t, st):
    """Max/Min exact; Mean/Norm within rel 1e-6 of a float64 torch computation."""
    d = t.detach().to(torch.float64)
    assert isinstance(st["Max"], float) and isinstance(st["Min"], float)
    assert st["Max"] == d.max().item()
    assert st["Min"] == d.min().item()
    scale = d.abs().mean().item()
    assert close(st["Mean"], d.mean().item(), scale), (st["Mean"], d.mean().item())
    assert close(st["Norm"], d.norm().item(), scale), (st["Norm"], d.norm().item())
    assert "Max_except_inf_nan" not in st and "Min_except_inf_nan" not in st


def random_tensor(dtype, n, gen):
    if dtype.is_floating_point:
        return (torch.randn(n, generator=gen, dtype=torch.float64) * 3 + 0.5).to(dtype)
    if dtype == torch.bool:
        return torch.rand(n, generator=gen) > 0.5
    if dtype.is_complex:
        return torch.randn(n, generator=gen, dtype=dtype)
    info = torch.iinfo(dtype)
    lo, hi = max(info.min, -(2**40)), min(info.max, 2**40)
    return torch.randint(lo, hi, (n,), generator=gen, dtype=torch.int64).to(dtype)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES + INT_DTYPES)
@pytest.mark.parametrize("n", SIZES)
def test_real_dtypes_match_torch(dtype, n):
    gen = torch.Generator().manual_seed(n)
    t = random_tensor(dtype, n, gen)
    st = _core.tensor_stats(t, True)
    check_real(t, st)
    assert st["md5"] == expected_md5(t)
    if dtype != torch.float64:  # fp16/bf16/fp32/integers: float32-precision Mean and Norm
        for k in ("Mean", "Norm"):
            assert st[k] == float(np.float32(st[k]))


def test_float64_keeps_double_precision():
    t = torch.tensor([0.1, 0.2, 0.3], dtype=torch.float64)
    st = _core.tensor_stats(t)
    assert st["Mean"] == (0.1 + 0.2 + 0.3) / 3
    assert st["Norm"] == pytest.approx(t.norm().item(), rel=1e-15)


def test_bool():
    t = torch.tensor([True, False, True])
    st = _core.tensor_stats(t, True)
    assert st["Max"] is True and st["Min"] is False
    assert st["Mean"] is None and st["Norm"] is None
    assert st["md5"] == expected_md5(t)
    assert _core.tensor_stats(torch.ones(10, dtype=torch.bool))["Min"] is True
    assert _core.tensor_stats(torch.zeros(10, dtype=torch.bool))["Max"] is False
    # 0-dim bool follows the bool rule
    st = _core.tensor_stats(torch.tensor(True))
    assert st == {"Max": True, "Min": True, "Mean": None, "Norm": None}


@pytest.mark.parametrize("dtype", COMPLEX_DTYPES)
@pytest.mark.parametrize("n", [1, 33, 5000])
def test_complex_uses_magnitudes(dtype, n):
    gen = torch.Generator().manual_seed(n)
    t = random_tensor(dtype, n, gen)
    st = _core.tensor_stats(t, True)
    a = t.abs().to(torch.float64)
    assert st["Max"] == pytest.approx(a.max().item(), rel=1e-6)
    assert st["Min"] == pytest.approx(a.min().item(), rel=1e-6)
    assert st["Mean"] == pytest.approx(a.mean().item(), rel=1e-6)
    assert st["Norm"] is None
    assert st["md5"] == expected_md5(t)


def test_complex_conj_and_neg_views():
    z = torch.tensor([1 + 2j, 3 - 4j, -5 + 0.5j], dtype=torch.complex64)
    c = z.conj()
    assert c.is_conj()
    st = _core.tensor_stats(c, True)
    assert st["md5"] == expected_md5(c)  # bytes of the conjugated values
    assert st["Max"] == pytest.approx(c.abs().max().item(), rel=1e-6)
    im = c.imag  # a view with the negative bit
    assert im.is_neg()
    st = _core.tensor_stats(im, True)
    check_real(im.resolve_neg(), st)
    assert st["md5"] == expected_md5(im)


def test_zero_dim():
    st = _core.tensor_stats(torch.tensor(3))
    assert st == {"Max": 3, "Min": 3, "Mean": 3, "Norm": 3}
    assert all(type(v) is int for v in st.values())
    st = _core.tensor_stats(torch.tensor(-2, dtype=torch.int8))
    assert st["Norm"] == -2 and type(st["Norm"]) is int
    st = _core.tensor_stats(torch.tensor(1.5, dtype=torch.float16), True)
    assert st["Max"] == st["Min"] == st["Mean"] == st["Norm"] == 1.5
    assert type(st["Max"]) is float
    assert st["md5"] == expected_md5(torch.tensor(1.5, dtype=torch.float16))
    b = torch.tensor(0.1, dtype=torch.bfloat16)
    st = _core.tensor_stats(b, True)
    assert st["Mean"] == b.item()
    assert st["md5"] == expected_md5(b)
    st = _core.tensor_stats(torch.tensor(float("inf")))
    assert st["Max"] == math.inf and st["Max_except_inf_nan"] == math.inf


@pytest.mark.parametrize("dtype", FLOAT_DTYPES + INT_DTYPES + [torch.bool, torch.complex64])
def test_empty(dtype):
    t = torch.empty((0, 3), dtype=dtype)
    st = _core.tensor_stats(t, True)
    assert st == {"Max": None, "Min": None, "Mean": None, "Norm": None, "md5": "00000000"}


def test_nan_and_inf():
    t = torch.tensor([1.0, math.inf, -2.0, math.nan])
    st = _core.tensor_stats(t)
    for k in ("Max", "Min", "Mean", "Norm"):
        assert math.isnan(st[k])
        assert math.isnan(getattr(torch, {"Max": "max", "Min": "min", "Mean": "mean", "Norm": "norm"}[k])(t).item())
    assert st["Max_except_inf_nan"] == 1.0 and st["Min_except_inf_nan"] == -2.0

    t = torch.tensor([1.0, math.inf])
    st = _core.tensor_stats(t)
    assert st["Max"] == math.inf and st["Min"] == 1.0
    assert st["Mean"] == t.mean().item() == math.inf
    assert st["Norm"] == t.norm().item() == math.inf
    assert st["Max_except_inf_nan"] == 1.0 and "Min_except_inf_nan" not in st

    t = torch.tensor([-math.inf, math.inf], dtype=torch.float16)
    st = _core.tensor_stats(t)
    assert math.isnan(st["Mean"]) and math.isnan(t.float().mean().item())
    assert st["Max_except_inf_nan"] == math.inf and st["Min_except_inf_nan"] == -math.inf

    t = torch.full((100,), math.nan, dtype=torch.bfloat16)
    st = _core.tensor_stats(t, True)
    assert math.isnan(st["Max_except_inf_nan"]) and math.isnan(st["Min_except_inf_nan"])
    assert st["md5"] == expected_md5(t)

    gen = torch.Generator().manual_seed(0)
    t = torch.randn(10000, generator=gen)
    t[1234] = math.inf
    t[77] = -math.inf
    finite = t[torch.isfinite(t)]
    st = _core.tensor_stats(t, True)
    assert st["Max_except_inf_nan"] == finite.max().item()
    assert st["Min_except_inf_nan"] == finite.min().item()
    assert st["md5"] == expected_md5(t)


def strided_cases(dtype):
    gen = torch.Generator().manual_seed(1)

    def rnd(*shape):
        t = torch.randn(*shape, generator=gen, dtype=torch.float64)
        return (t * 100).to(dtype) if not dtype.is_floating_point else t.to(dtype)

    base = rnd(64, 130)
    cube = rnd(6, 7, 8)
    return {
        "transposed": base.t(),
        "rows_step": base[::3],
        "cols_step": base[:, 1::2],
        "both_step": base[5:60:4, 3:120:5],
        "narrow": base[:, 10:14],
        "expanded": rnd(1, 50).expand(40, 50),
        "permuted": cube.permute(2, 0, 1),
        "permuted_step": cube.permute(1, 2, 0)[:, ::2],
        "diagonal": base[:64, :64].diagonal(),
    }


@pytest.mark.parametrize("name", list(strided_cases(torch.float32)))
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16, torch.float16, torch.int32])
def test_non_contiguous(name, dtype):
    t = strided_cases(dtype)[name]
    assert not t.is_contiguous()
    st = _core.tensor_stats(t, True)
    check_real(t, st)
    assert st["md5"] == expected_md5(t)
    c = _core.tensor_stats(t.contiguous(), True)
    assert st.keys() == c.keys()
    assert st["Max"] == c["Max"] and st["Min"] == c["Min"] and st["md5"] == c["md5"]
    assert math.isclose(st["Mean"], c["Mean"], rel_tol=1.2e-7, abs_tol=1e-30)
    assert math.isclose(st["Norm"], c["Norm"], rel_tol=1.2e-7)


def test_requires_grad_tensors():
    w = torch.nn.Parameter(torch.randn(8, 5))
    st = _core.tensor_stats(w, True)
    check_real(w, st)
    assert st["md5"] == expected_md5(w)
    y = (w * 2).t()  # non-leaf, requires grad, non-contiguous
    assert y.requires_grad
    st = _core.tensor_stats(y, True)
    check_real(y, st)
    assert st["md5"] == expected_md5(y)
    assert y.stride() == (1, 5)  # read through its strides: the checksum is the contiguous data's


def test_numpy_arrays():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    st = _core.tensor_stats(a, True)
    assert st["Max"] == 11.0 and st["Min"] == 0.0 and st["Mean"] == 5.5
    assert st["md5"] == f"{zlib.crc32(a.tobytes()):08x}"
    r = a[::-1, ::2]  # negative strides
    st = _core.tensor_stats(r, True)
    assert st["md5"] == f"{zlib.crc32(np.ascontiguousarray(r).tobytes()):08x}"
    ro = np.linspace(0, 1, 11)
    ro.flags.writeable = False
    assert _core.tensor_stats(ro)["Mean"] == pytest.approx(0.5, rel=1e-15)
    with pytest.raises(TypeError, match="expected a torch.Tensor"):
        _core.tensor_stats(np.float64(1.0))  # numpy scalars are not tensors


def test_non_tensors_and_errors():
    for obj in (3, 1.5, "x", None, [1], (1,), {"a": 1}, torch.float32, torch.device("cpu"), slice(1), ...,
                torch.Size([2, 3]), b"ab"):
        with pytest.raises(TypeError, match="expected a torch.Tensor"):
            _core.tensor_stats(obj)
    with pytest.raises(TypeError, match="torch.uint16"):
        _core.tensor_stats(torch.zeros(3, dtype=torch.uint16))


def test_meta_tensor_gives_null_statistics():
    t = torch.empty(4, 4, device="meta")
    assert _core.tensor_stats(t, True) == {"Max": None, "Min": None, "Mean": None, "Norm": None}


def test_crc32_matches_zlib():
    rng = np.random.default_rng(5)
    for n in (0, 1, 15, 16, 63, 64, 255, 256, 1000, 70000):
        data = rng.integers(0, 256, n, dtype=np.uint8).tobytes()
        assert _core.crc32(data) == zlib.crc32(data)
        assert _core.crc32(data, 12345) == zlib.crc32(data, 12345)
        assert _core.crc32(bytearray(data)) == zlib.crc32(data)
        assert _core.crc32(memoryview(data)[3:]) == zlib.crc32(data[3:])
    assert _core.crc32(b"123456789") == 0xCBF43926
