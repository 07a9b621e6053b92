"""One API of a MindSpore dump replayed as 1.2.1's MindSpore run_ut does (docs 09): MindSpore is the
API under test, PyTorch on the CPU the benchmark, at the same dtypes.

- Tensor dumps: the inputs are the dumped tensors; the tested outputs are the dumped outputs
  (forward) and the dumped input gradients (backward); only PyTorch runs.
- Statistics dumps: each input tensor is drawn from its recorded Max/Min (numpy's global RNG
  re-seeded with 42 for every tensor, as 1.2.1 does), then both MindSpore and PyTorch run.

Each output pair is judged by msprobe._core.runut.MsApiResult (C++ metrics and rows); a direction
that raises is SKIP with the exception text, as in 1.2.1. Only framework calls happen here."""
import functools

import numpy as np
import torch

from msprobe.mindspore.run_ut.records import DtypeMeta, RecordError, TensorMeta, parse_elements, parse_kwargs

_NAMES = ("Int8", "UInt8", "Int16", "UInt16", "Int32", "UInt32", "Int64", "UInt64", "Float16", "Float32",
          "Float64", "Bool", "BFloat16")
_TORCH = {"Int8": torch.int8, "UInt8": torch.uint8, "Int16": torch.int16, "Int32": torch.int32,
          "Int64": torch.int64, "Float16": torch.float16, "Float32": torch.float32, "Float64": torch.float64,
          "Bool": torch.bool, "BFloat16": torch.bfloat16}
_NP = {"Int8": np.int8, "UInt8": np.uint8, "Int16": np.int16, "UInt16": np.uint16, "Int32": np.int32,
       "UInt32": np.uint32, "Int64": np.int64, "UInt64": np.uint64, "Float16": np.float16,
       "Float32": np.float32, "Float64": np.float64, "Bool": np.bool_}
_TORCH_NAME = {v: k for k, v in _TORCH.items()}
FLOAT_NAMES = ("Float16", "Float32", "Float64", "BFloat16")
INT_NAMES = ("Int8", "Int16", "Int32", "Int64", "Bool")
_PY_TYPE_NAME = {bool: "bool", int: "int", float: "float", slice: "slice", str: "str"}

_TORCH_MODULES = {"Mint": "torch", "MintFunctional": "torch.nn.functional", "Tensor": "torch.Tensor"}
_MS_MODULES = {"Mint": "mindspore.mint", "MintFunctional": "mindspore.mint.nn.functional",
               "Tensor": "mindspore.Tensor"}


@functools.lru_cache(maxsize=None)
def _ms():
    """MindSpore, imported on first use: a tensor dump is checked without it (only PyTorch runs).
    Each API is replayed on tiny tensors and read back at once, so MindSpore's asynchronous launch
    (a hand-over to its launch threads per operator) only adds waits: launched synchronously, the
    same kernels give the same numbers in half the time."""
    import mindspore
    mindspore.runtime.launch_blocking()
    return mindspore


@functools.lru_cache(maxsize=None)
def _ms_dtypes():
    ms = _ms()
    dtypes = dict(zip(_NAMES, (ms.int8, ms.uint8, ms.int16, ms.uint16, ms.int32, ms.uint32, ms.int64, ms.uint64,
                               ms.float16, ms.float32, ms.float64, ms.bool_, ms.bfloat16)))
    return dtypes, {v: k for k, v in dtypes.items()}


@functools.lru_cache(maxsize=None)
def _grad_all():
    return _ms().ops.GradOperation(get_all=True, sens_param=True)


def _is_ms_tensor(value):
    return type(value).__module__.startswith("mindspore") and isinstance(value, _ms().Tensor)


def _module(path):
    obj = _ms() if path.startswith("mindspore") else torch
    for part in path.split(".")[1:]:
        obj = getattr(obj, part)
    return obj
API_ERROR = "[msprobe] Api Accuracy Checker something wrong with api: "


class Out:
    """One output as 1.2.1 judges it: the value, its dtype name and its shape tuple."""
    __slots__ = ("value", "dtype", "shape")

    def __init__(self, value, dtype=None, shape=None):
        self.value = value
        if dtype is not None:
            self.dtype, self.shape = dtype, shape
        elif isinstance(value, torch.Tensor):
            self.dtype, self.shape = _TORCH_NAME.get(value.dtype), tuple(value.shape)
        elif _is_ms_tensor(value):
            self.dtype, self.shape = _ms_dtypes()[1].get(value.dtype), tuple(value.shape)
        else:
            self.dtype, self.shape = _PY_TYPE_NAME.get(type(value), "tuple" if isinstance(value, tuple) else None), ()

    def is_tensor(self):
        return isinstance(self.value, (torch.Tensor, np.ndarray)) or _is_ms_tensor(self.value)


def api_function(api_type, name, platform):
    module_name = (_MS_MODULES if platform == "mindspore" else _TORCH_MODULES)[api_type]
    module = _module(module_name)
    fn = getattr(module, name, None)
    if fn is None:
        raise RecordError(f"{API_ERROR}{module_name}.{name} is not found")
    if not callable(fn):
        raise RecordError(f"{API_ERROR}{module_name}.{name} is not callable")
    return fn


class Materializer:
    """Turns parsed records into MindSpore or PyTorch arguments."""

    def __init__(self, store, constructed):
        self.store = store  # the dump's tensor files (C++ TensorStore) in tensor mode
        self.constructed = constructed

    def _ndarray(self, meta):
        if self.constructed:
            np_dtype = _NP.get(meta.dtype, np.float64)
            np.random.seed(42)
            shape = tuple(meta.shape)
            if np_dtype == np.bool_:
                return np.random.rand(*shape) > 0.5
            # 1.2.1 looks the bound up by the numpy type, never found: inf is float64's max.
            hi = np.finfo(np.float64).max if meta.maximum == float("inf") else \
                np.finfo(np.float64).min if meta.maximum == float("-inf") else meta.maximum
            lo = np.finfo(np.float64).max if meta.minimum == float("inf") else \
                np.finfo(np.float64).min if meta.minimum == float("-inf") else meta.minimum
            return np.random.uniform(lo, hi, shape).astype(np_dtype)
        array, _ = self.store.load(meta.data_name)
        return np.from_dlpack(array)

    def ms_tensor(self, meta):
        return _ms().Tensor(self._ndarray(meta), dtype=_ms_dtypes()[0][meta.dtype])

    def host_array(self, meta):
        """The tensor as a numpy array of its recorded dtype: what mindspore.Tensor(array, dtype)
        holds, without the round trip through MindSpore (bfloat16 keeps that round trip)."""
        if meta.dtype not in _NP:
            return None
        array = self._ndarray(meta)
        np_dtype = np.dtype(_NP[meta.dtype])
        return array if array.dtype == np_dtype else array.astype(np_dtype)

    def get(self, elem, platform):
        """The argument for `platform`: "mindspore", "torch", or "host" (numpy arrays)."""
        if isinstance(elem, tuple):
            return tuple(self.get(e, platform) for e in elem)
        if isinstance(elem, DtypeMeta):
            return (_ms_dtypes()[0] if platform == "mindspore" else _TORCH).get(elem.name)
        if isinstance(elem, TensorMeta):
            if platform != "mindspore":
                array = self.host_array(elem)
                if array is not None:
                    return np.array(array) if platform == "host" else _torch_from_numpy(array, elem.dtype)
            t = self.ms_tensor(elem)
            return to_torch(t) if platform == "torch" else t
        return elem


def _torch_from_numpy(array, name):
    if name not in _TORCH:
        raise RecordError(f"[msprobe] Api Accuracy Checker get unsupported type: no matching torch dtype for {name}")
    return torch.from_numpy(np.array(array))  # a copy: in-place APIs write to it


def to_torch(t):
    """1.2.1's transfer: through int64 / float64, then the torch dtype."""
    name = _ms_dtypes()[1].get(t.dtype)
    if name not in _TORCH:
        raise RecordError(f"[msprobe] Api Accuracy Checker get unsupported type: no matching torch dtype for {name}")
    middle = _ms().int64 if name in INT_NAMES else _ms().float64
    return torch.from_numpy(t.astype(middle).asnumpy()).to(_TORCH[name])


def _tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def run_api(fn, args, kwargs, grads, platform):
    """Forward (grads None) or backward outputs of one framework call, as Out objects."""
    if grads is None:
        return [Out(r) for r in _tuple(fn(*args, **kwargs))]
    if platform == "mindspore":
        sens = grads[0] if len(grads) == 1 else grads

        def with_kwargs(*inputs):
            return fn(*inputs, **kwargs)

        return [Out(r) for r in _tuple(_grad_all()(with_kwargs)(*args, sens))]
    need = [i for i, a in enumerate(args) if isinstance(a, torch.Tensor) and _TORCH_NAME.get(a.dtype) in FLOAT_NAMES]
    for i in need:
        args[i].requires_grad = True
    outs = _tuple(fn(*args, **kwargs))
    for out, g in zip(outs, grads):
        out.backward(g)
    return [Out(args[i].grad) for i in need]


def _trim(outs, backward):
    return [o for o in outs if o.value is not None and not (backward and o.dtype not in FLOAT_NAMES)]


def _host(t):
    if isinstance(t, np.ndarray):
        return t
    if isinstance(t, torch.Tensor):
        return t.detach()
    if t.dtype == _ms().bfloat16:
        t = t.astype(_ms().float32)
    return t.asnumpy()


class MsApiRunner:
    """Replays the APIs of one RunutDump (tensor or statistics) and judges them."""

    def __init__(self, dump):
        self.dump = dump
        self.constructed = dump.task == "statistics"
        store = None
        if self.constructed:
            _ms()  # MindSpore runs the tested side
        else:
            from msprobe import _core
            store = _core.reader.TensorStore(dump.real_data_dir)
        self.mat = Materializer(store, self.constructed)

    def run(self, i):
        from msprobe import _core
        name = self.dump.name(i)
        result = _core.runut.MsApiResult(name)
        forward = self.dump.forward(i)
        backward = self.dump.backward(i)
        for is_backward, record in ((False, forward), (True, backward)):
            if record is None:
                continue
            try:
                self._direction(result, name, forward, record if is_backward else None, is_backward)
            except Exception as e:  # 1.2.1: any failure of a direction is SKIP with its text
                result.skip(is_backward, str(e))
        return result

    def _direction(self, result, name, forward, backward, is_backward):
        c = self.constructed
        inputs = parse_elements(forward, "input_args", f"{name} forward api", c)
        kwargs = parse_kwargs(forward, c)
        grads = parse_elements(backward, "input", f"{name} backward api", c) if is_backward else None
        direction = "backward" if is_backward else "forward"
        parts = name.split(".")
        if len(parts) != 3:
            raise RecordError(f"[msprobe] Api Accuracy Checker get wrong value: {name} is not in defined format")
        api_type, api_name = parts[0], parts[1]
        if self.constructed:
            tested = self._run("mindspore", api_type, api_name, inputs, kwargs, grads)
        else:
            recorded = parse_elements(backward if is_backward else forward, "output", f"{name} {direction} api", c)
            tested = [Out(self.mat.get(e, "host"), *_recorded_type(e)) for e in recorded]
        bench = self._run("torch", api_type, api_name, inputs, kwargs, grads)
        tested, bench = _trim(tested, is_backward), _trim(bench, is_backward)
        result.mark_ran(is_backward)
        for b, t in zip(bench, tested):
            shape = str(b.shape)
            if b.is_tensor() and t.is_tensor() and b.shape == t.shape:
                result.add_tensor(is_backward, b.dtype or "None", t.dtype or "None", shape, _host(b.value),
                                  _host(t.value))
            else:
                result.add_not_comparable(is_backward, b.dtype or "None", t.dtype or "None", shape)

    def _run(self, platform, api_type, api_name, inputs, kwargs, grads):
        fn = api_function(api_type, api_name, platform)
        args = [self.mat.get(e, platform) for e in inputs]
        kw = {k: self.mat.get(v, platform) for k, v in kwargs.items()}
        g = None if grads is None else tuple(self.mat.get(e, platform) for e in grads)
        if platform == "mindspore":
            args = tuple(args)
        return run_api(fn, args, kw, g, platform)


def _recorded_type(elem):
    """(dtype name, shape) of a recorded output as 1.2.1 reads them from dump.json."""
    if isinstance(elem, TensorMeta):
        return elem.dtype, tuple(elem.shape)
    if isinstance(elem, tuple):
        return "tuple", ()
    if isinstance(elem, DtypeMeta):
        return "mindspore.dtype", ()
    return _PY_TYPE_NAME.get(type(elem)), ()

