"""Rebuilding an API's arguments from its dump.json record (accuracy-checker spec §1.6).

Tensors come from the dumped file (`data_name` in the real-data folder, read by the C++ reader:
tensor_io.load_dumped_tensor) or, in statistics-only dumps, are generated from the recorded dtype,
shape, Max and Min so that the recorded extremes are present (first element = Min, last = Max,
inf/NaN kept). The caller seeds torch per API, so reruns give identical inputs.
"""
import math

import numpy
import torch

from msprobe.pytorch.run_ut.tensor_io import load_dumped_tensor

TENSOR_TYPES = ("torch.Tensor", "torch.nn.parameter.Parameter")
FLOAT_DTYPES = ("torch.float32", "torch.float", "torch.float64", "torch.double", "torch.float16",
                "torch.half", "torch.bfloat16")
NUMPY_TYPES = (
    "numpy.int8", "numpy.int16", "numpy.int32", "numpy.int64", "numpy.uint8", "numpy.uint16",
    "numpy.uint32", "numpy.uint64", "numpy.float16", "numpy.float32", "numpy.float64",
    "numpy.float128", "numpy.complex64", "numpy.complex128", "numpy.complex256", "numpy.bool_",
    "numpy.string_", "numpy.bytes_", "numpy.unicode_")
TORCH_FLOAT_OUTPUT_DTYPES = {"torch.bfloat16": torch.bfloat16, "torch.float16": torch.float16,
                             "torch.float32": torch.float32, "torch.float64": torch.float64}
# Dtype conversions for APIs whose CPU kernels lack a dtype (const.py CONVERT / CONVERT_API).
CONVERT_API = {"cross_entropy": ("torch.int32", "torch.int64"),
               "histc": ("torch.int64", "torch.float32")}
HF32_APIS = ("conv1d", "conv2d")
FA_SPECIAL_SPARSE_MODES = (2, 3, 4)
MAX_DEPTH = 10


class InputError(ValueError):
    """An argument cannot be rebuilt (the API is SKIPped with this message)."""


def resolve_dtype(name):
    """'torch.float16' -> torch.float16 (only the torch and numpy modules are looked up)."""
    if not isinstance(name, str) or name.count(".") != 1:
        raise InputError(f"invalid dtype {name!r}: expected a name like 'torch.float32'")
    module, attr = name.split(".")
    if module not in ("torch", "numpy"):
        raise InputError(f"invalid dtype {name!r}: only torch and numpy dtypes are allowed")
    value = getattr(torch if module == "torch" else numpy, attr, None)
    if value is None:
        raise InputError(f"unknown dtype {name!r}")
    return value


def _hf32(t):
    """conv1d/conv2d float32 inputs are rounded to HF32 (C++ in-place rounding)."""
    from msprobe import _core
    t = t.detach().contiguous().clone()
    _core.runut.round_to_hf32_(t)
    return t


class ArgBuilder:
    """Builds the arguments of one API call."""

    def __init__(self, api_name, real_data_dir=None):
        self.api_name = api_name
        self.real_data_dir = real_data_dir
        self._store = None  # the dump's tensor files (C++ TensorStore), opened on first use
        self.convert = CONVERT_API.get(api_name)

    # ---- tensors -----------------------------------------------------------------------------
    def _load_tensor(self, data_name):
        if not self.real_data_dir:
            raise InputError(f"tensor file {data_name!r} is named, but the dump has no dump_tensor_data "
                             "folder (dump_data_dir is empty)")
        if self._store is None:
            from msprobe import _core
            self._store = _core.reader.TensorStore(self.real_data_dir)
        data = load_dumped_tensor(self._store, data_name)
        if not isinstance(data, torch.Tensor):
            raise InputError(f"{data_name} does not hold a tensor")
        if self.convert and str(data.dtype) == self.convert[0]:
            data = data.to(resolve_dtype(self.convert[1]))
        return data

    def _random_tensor(self, info):
        lo0 = info.get("Min")
        lo = info.get("Min_except_inf_nan", lo0)
        hi0 = info.get("Max")
        hi = info.get("Max_except_inf_nan", hi0)
        dtype_name = info.get("dtype")
        shape = info.get("shape")
        if not isinstance(shape, list) or not all(isinstance(s, int) and s >= 0 for s in shape):
            raise InputError(f"tensor record has an invalid shape {shape!r}")
        shape = tuple(shape)
        if 0 in shape:
            lo = lo0 = hi = hi0 = 0
        elif not isinstance(lo, (int, float)) or not isinstance(hi, (int, float)):
            raise InputError(f"Data info Min: {lo} , Max: {hi}, info type must be int or float.")
        if dtype_name == "torch.bool":
            a, b = int(lo), int(hi)
            if a > b:
                a, b = b, a
            return torch.randint(a, b + 1, shape) > 0
        if self.convert and dtype_name == self.convert[0]:
            dtype_name = self.convert[1]
        dtype = resolve_dtype(dtype_name)
        if not isinstance(dtype, torch.dtype):
            raise InputError(f"invalid tensor dtype {dtype_name!r}")
        if dtype_name in FLOAT_DTYPES:
            if math.isnan(hi):
                return torch.full(shape, float("nan"), dtype=dtype)
            if hi0 and hi in (math.inf, -math.inf):  # the tensor held only inf / NaN
                t = torch.full(shape, hi, dtype=dtype)
                if t.dim() == 0:
                    t.fill_(lo)
                else:
                    t[-1] = lo
                return t
            finfo = torch.finfo(dtype)
            lo_s = finfo.max if lo == math.inf else finfo.min if lo == -math.inf else lo
            hi_s = finfo.max if hi == math.inf else finfo.min if hi == -math.inf else hi
            t = torch.rand(shape, dtype=dtype) * (hi_s - lo_s) + lo_s
        elif "int" in dtype_name or "long" in dtype_name:
            t = torch.randint(int(lo), int(hi) + 1, shape, dtype=dtype)
        else:
            raise InputError(f"random generation of {dtype_name} tensors is not supported; "
                             "dump with task \"tensor\" to check this API")
        if t.numel() == 0:
            return t
        flat = t.view(-1)
        if hi0 and isinstance(hi0, float) and math.isnan(hi0):
            if flat.numel() <= 2:
                flat[0] = float("nan")
                flat[-1] = hi
            else:
                flat[0] = lo
                flat[1] = float("nan")
                flat[-1] = hi
        else:
            flat[0] = lo
            flat[-1] = hi
            if hi0 in (math.inf, -math.inf):
                flat[-1] = hi0
            if lo0 in (math.inf, -math.inf):
                flat[0] = lo0
        return t

    def tensor(self, info, need_grad):
        data_name = info.get("datapath", info.get("data_name"))
        t = self._load_tensor(data_name) if data_name else self._random_tensor(info)
        if self.api_name in HF32_APIS and t.dtype == torch.float32:
            t = _hf32(t)
        # (integer and bool tensors never take gradients, whatever the record says)
        if need_grad and info.get("requires_grad") and (t.is_floating_point() or t.is_complex()):
            t.requires_grad_(True)
            t = (t * 1).type_as(t)  # a non-leaf whose .grad is kept
            t.retain_grad()
        return t

    # ---- values ------------------------------------------------------------------------------
    def value(self, info, need_grad, where):
        """One positional argument (or a list item) from its record."""
        if not isinstance(info, dict):
            raise InputError(f"{where}: expected an object, got {info!r}")
        kind = info.get("type")
        if kind is None:
            raise InputError(f"{where} was not recorded (a value of a type the dump does not describe); "
                             "the call cannot be rebuilt")
        if kind in TENSOR_TYPES:
            return self.tensor(info, need_grad)
        if not isinstance(kind, str):
            raise InputError(f"{where}: invalid type {kind!r}")
        if kind.startswith("numpy"):
            if kind not in NUMPY_TYPES:
                raise InputError(f"{kind} is not supported now")
            ctor = getattr(numpy, kind.split(".", 1)[1], None)
            if ctor is None:
                raise InputError(f"{kind} is not available in this numpy")
            return ctor(info.get("value"))
        if kind == "torch.Size":
            return torch.Size(info.get("value"))
        if kind == "slice":
            return slice(*info.get("value"))
        if kind == "ellipsis":
            return ...
        if kind == "torch.dtype":
            return resolve_dtype(info.get("value"))
        if kind == "torch.memory_format":
            fmt = getattr(torch, str(info.get("format")), None)
            return fmt if isinstance(fmt, torch.memory_format) else None
        return info.get("value")

    def args(self, records, need_grad, where="input_args", depth=0):
        if depth > MAX_DEPTH:
            raise InputError(f"{where}: nested more than {MAX_DEPTH} levels")
        if not isinstance(records, list):
            raise InputError(f"{where}: expected a list, got {type(records).__name__}")
        out = []
        for i, rec in enumerate(records):
            item = f"{where}[{i}]"
            if isinstance(rec, list):
                out.append(self.args(rec, need_grad, item, depth + 1))
            elif rec is None:
                out.append(None)
            else:
                out.append(self.value(rec, need_grad, item))
        return out

    def kwargs(self, records):
        if records is None:
            return {}
        if not isinstance(records, dict):
            raise InputError(f"input_kwargs: expected an object, got {type(records).__name__}")
        out = {}
        for key, rec in records.items():
            where = f"input_kwargs[{key!r}]"
            if isinstance(rec, list):
                items = []
                for i, item in enumerate(rec):
                    if isinstance(item, dict) and item.get("type") in TENSOR_TYPES:
                        items.append(self.tensor(item, False))
                    elif isinstance(item, dict) and item.get("type") == "torch.Size":
                        items.append(torch.Size(item.get("value")))
                    elif isinstance(item, dict):
                        items.append(item.get("value"))
                    elif item is None:
                        items.append(None)
                    else:
                        raise InputError(f"{where}[{i}]: expected an object, got {item!r}")
                out[key] = items
            elif rec is None:
                out[key] = None
            elif not isinstance(rec, dict):
                raise InputError(f"{where}: expected an object, got {rec!r}")
            elif key == "atten_mask" and self.api_name == "npu_fusion_attention":
                out[key] = self._atten_mask(rec, records.get("sparse_mode", {}))
            elif rec.get("type") == "torch.device":
                out[key] = rec  # resolved by the runner (device run only)
            elif rec.get("type") in TENSOR_TYPES:
                out[key] = self.tensor(rec, True)
            elif rec.get("type") == "torch.dtype":
                out[key] = resolve_dtype(rec.get("value"))
            elif rec.get("type") is None and "format" not in rec:
                raise InputError(f"{where} was not recorded (a value of a type the dump does not describe); "
                                 "the call cannot be rebuilt")
            else:
                out[key] = self.value(rec, True, where) if "type" in rec else rec.get("value")
        return out

    def _atten_mask(self, rec, sparse_mode):
        if isinstance(sparse_mode, dict):
            mode = sparse_mode.get("value", 0)
        elif isinstance(sparse_mode, int):
            mode = sparse_mode
        else:
            raise InputError(f"The sparse_mode value is not int or dict, but {type(sparse_mode)}")
        if mode not in FA_SPECIAL_SPARSE_MODES:
            return self.value(rec, True, "input_kwargs['atten_mask']")
        if rec.get("type") not in TENSOR_TYPES:
            return None
        if rec.get("datapath", rec.get("data_name")):
            return self._load_tensor(rec.get("datapath", rec.get("data_name")))
        # The compressed mask an NPU kernel expects for sparse modes 2-4.
        return torch.triu(torch.ones([2048, 2048]), diagonal=1).to(torch.bool)


def preprocess_record(api_name, record):
    """API-specific fixes of the recorded arguments (cross_entropy targets, histc ints)."""
    args = record.get("input_args")
    if api_name == "cross_entropy" and isinstance(args, list) and len(args) > 1 \
            and isinstance(args[1], dict) and isinstance(args[1].get("Min"), (int, float)) \
            and args[1]["Min"] <= 0:
        args[1]["Min"] = 0  # class indices are never negative (-100 is ignore_index)
    if api_name == "histc" and isinstance(args, list) and args and isinstance(args[0], dict) \
            and args[0].get("dtype") in ("torch.int8", "torch.int32", "torch.int64"):
        args[0]["dtype"] = "torch.float32"
    return record


def output_dtype(record):
    """The recorded dtype of output[0] when it is a float dtype (decides device autocast)."""
    out = record.get("output")
    if isinstance(out, list) and out and isinstance(out[0], dict):
        return TORCH_FLOAT_OUTPUT_DTYPES.get(out[0].get("dtype"))
    return None
