"""Running one API on the device under test and on the CPU benchmark (accuracy-checker spec §1.7,
§1.8): API lookup per family, the device copies, the benchmark upcast, autocast, backward."""
import contextlib

import torch

from msprobe.pytorch.run_ut.api_list import supported_apis
from msprobe.pytorch.run_ut.data_generate import HF32_APIS

# Not detached on either side (in-place view ops).
NOT_DETACH_APIS = {"resize_", "resize_as_", "set_", "transpose_", "t_", "squeeze_", "unsqueeze_"}
NOT_RAISE_DTYPE_APIS = {"type_as"}
PRECISION_MAPPING = {torch.float16: torch.float32, torch.bfloat16: torch.float32,
                     torch.float32: torch.float64}
NOT_BACKWARD_APIS = {"repeat_interleave"}
UNSUPPORTED_BACKWARD_APIS = {"masked_select"}
# Output index fed to .backward() for APIs with several outputs (torch_ut_setting.json).
GRAD_INDEX = {"topk": 0, "npu_fusion_attention": 0}
MAX_DEPTH = 10


class BackwardMessage:
    MULTIPLE_BACKWARD_MESSAGE = "Multiple backward is not supported."
    UNSUPPORT_BACKWARD_MESSAGE = ("function with out=... arguments don't support automatic differentiation, "
                                  "skip backward.")
    NO_BACKWARD_RESULT_MESSAGE = "This API does not have backward input data, skip backward."
    UNSUPPORT_API_MESSAGE = "This API does not support backward ut, skip backward."


class UnsupportedApi(Exception):
    """The API cannot be replayed here (message written as the SKIP reason)."""


# ---- devices -----------------------------------------------------------------------------------
def select_device(device_id=0):
    """'cuda:<id>' when CUDA is available, 'npu:<id>' with torch_npu, else 'cpu'."""
    if torch.cuda.is_available():
        if device_id >= torch.cuda.device_count():
            raise ValueError(f"device id {device_id} does not exist: {torch.cuda.device_count()} CUDA "
                             "device(s) available")
        torch.cuda.set_device(device_id)
        return f"cuda:{device_id}"
    try:
        import torch_npu  # noqa: F401
    except ImportError:
        return "cpu"
    torch.npu.set_device(device_id)
    return f"npu:{device_id}"


def device_type(device):
    return device.split(":")[0]


# ---- API lookup --------------------------------------------------------------------------------
def get_api_function(api_type, api_name, device, benchmark=False):
    """The callable replaying `api_type.api_name`: the torch API for every family but NPU, whose
    fused ops have a device implementation (the real op with torch_npu, else a reference at the
    dumped dtype) and a high-precision CPU benchmark."""
    lists = supported_apis()
    if api_type == "Functional":
        fn = getattr(torch.nn.functional, api_name, None) if api_name in lists.get("functional", ()) else None
    elif api_type == "Tensor":
        fn = getattr(torch.Tensor, api_name, None) if api_name in lists.get("tensor", ()) else None
    elif api_type == "Torch":
        fn = None
        if api_name in lists.get("torch", ()):
            fn = torch
            for part in api_name.split("."):
                fn = getattr(fn, part, None)
                if fn is None:
                    break
    elif api_type == "Aten":
        fn = _aten_op(api_name)
    elif api_type == "NPU":
        return _npu_function(api_name, device, benchmark)
    else:
        raise UnsupportedApi(f"API type {api_type} is not supported for run ut.")
    if fn is None:
        raise UnsupportedApi(f"API {api_type}.{api_name} is not available in torch {torch.__version__} "
                             "or not in the supported API list; skip it.")
    return fn


def _aten_op(api_name):
    packet_name, _, overload = api_name.partition(".")
    packet = getattr(torch.ops.aten, packet_name, None) if hasattr(torch.ops, "aten") else None
    if packet is None:
        raise UnsupportedApi(f"Skip op[{api_name}] accuracy check, because the op is not "
                             "in dir(torch.ops.aten) and support yaml.")
    if overload:
        op = getattr(packet, overload, None)
        if op is None:
            raise UnsupportedApi(f"Skip op[{api_name}] accuracy check, because the overload "
                                 f"{overload} does not exist.")
        return op
    return packet


def _npu_function(api_name, device, benchmark):
    from msprobe.pytorch.run_ut.bench_functions import get_npu_function
    if not benchmark and device_type(device) == "npu":
        import torch_npu
        fn = getattr(torch_npu, api_name, None) or getattr(torch.ops.npu, api_name, None)
        if fn is None:
            raise UnsupportedApi(f"There is not npu function {api_name}")
        return fn
    fn = get_npu_function(api_name, benchmark=benchmark)
    if fn is None:
        raise UnsupportedApi(f"There is not bench function {api_name}")
    return fn


# ---- argument copies ---------------------------------------------------------------------------
def _map_tensors(obj, fn, depth=0):
    if depth > MAX_DEPTH:
        raise ValueError(f"arguments nested more than {MAX_DEPTH} levels")
    if isinstance(obj, torch.Tensor):
        return fn(obj)
    if isinstance(obj, (list, tuple)) and not isinstance(obj, torch.Size):
        return type(obj)(_map_tensors(x, fn, depth + 1) for x in obj)
    return obj


def _track_grad(t):
    t.requires_grad_()
    t = (t * 1).type_as(t)
    t.retain_grad()
    return t


def device_params(args, kwargs, need_backward, api_name, device):
    """Detached clones on the device, at the recorded dtype; tensors that require grad become
    non-leaf tensors whose .grad is kept."""
    detach = api_name not in NOT_DETACH_APIS

    def copy(t, to_detach):
        grad = need_backward and t.requires_grad
        c = t.clone()
        if to_detach:
            c = c.detach()
        c = c.to(device)
        return _track_grad(c) if grad else c

    dev_args = _map_tensors(args, lambda t: copy(t, detach))
    dev_kwargs = {k: _map_tensors(v, lambda t, k=k: copy(t, detach and k != "out")) for k, v in kwargs.items()}
    return dev_args, dev_kwargs


def _float_dtypes(obj, found, depth=0):
    if depth > MAX_DEPTH:
        raise ValueError(f"arguments nested more than {MAX_DEPTH} levels")
    if isinstance(obj, torch.Tensor):
        if obj.dtype in PRECISION_MAPPING and obj.dtype not in found:
            found.append(obj.dtype)
    elif isinstance(obj, (list, tuple)):
        for x in obj:
            _float_dtypes(x, found, depth + 1)
    elif isinstance(obj, dict):
        for x in obj.values():
            _float_dtypes(x, found, depth + 1)
    return found


def bench_params(args, kwargs, need_backward, api_name):
    """CPU benchmark copies with the upcast rule. Returns (args, kwargs, autocast_dtype, is_autocast):
    one float dtype among fp16/bf16/fp32 -> fp16/bf16 to fp32, fp32 to fp64; several -> fp16/bf16
    to fp32 and the device runs under autocast of the (first found) half dtype."""
    found = _float_dtypes(args, [])
    _float_dtypes(kwargs, found)
    raise_dtype, autocast_dtype, is_autocast = None, None, False
    if len(found) == 1:
        autocast_dtype = found[0]
        raise_dtype = PRECISION_MAPPING[found[0]]
    elif len(found) >= 2:
        raise_dtype = torch.float32
        halves = [d for d in found if d != torch.float32]
        autocast_dtype = halves[0]
        is_autocast = True
    if api_name in NOT_RAISE_DTYPE_APIS:
        raise_dtype = None
    detach = api_name not in NOT_DETACH_APIS

    def copy(t, to_detach):
        c = t.clone()
        if not (api_name in HF32_APIS and c.dtype == torch.float32) and raise_dtype is not None \
                and c.dtype in PRECISION_MAPPING and c.dtype != raise_dtype:
            c = c.to(raise_dtype)
        if to_detach:
            c = c.detach()
        return _track_grad(c) if (need_backward and t.requires_grad) else c

    cpu_args = _map_tensors(args, lambda t: copy(t, detach))
    cpu_kwargs = {k: _map_tensors(v, lambda t, k=k: copy(t, detach and k != "out")) for k, v in kwargs.items()}
    return cpu_args, cpu_kwargs, autocast_dtype, is_autocast


def autocast_context(device, dtype, enabled):
    """Device autocast; only float16/bfloat16 are autocast targets (torch ignores others)."""
    if not enabled or dtype not in (torch.float16, torch.bfloat16):
        return contextlib.nullcontext()
    dev = device_type(device)
    if dev == "npu":
        import torch_npu
        return torch_npu.npu.amp.autocast(dtype=dtype)
    return torch.autocast(device_type=dev, dtype=dtype)


def exec_api(fn, args, kwargs, autocast=None):
    with autocast or contextlib.nullcontext():
        return fn(*args, **kwargs)


def run_backward(args, grad, grad_index, out):
    """Feeds `grad` into out (or out[grad_index]) and returns the .grad of every positional tensor
    argument, flattened in order (None where a tensor got no gradient)."""
    if grad_index is not None:
        if grad_index >= len(out):
            raise IndexError(f"Run backward error when grad_index is {grad_index}")
        out[grad_index].backward(grad)
    else:
        out.backward(grad)
    grads = []

    def collect(obj, depth=0):
        if depth > MAX_DEPTH:
            raise ValueError(f"arguments nested more than {MAX_DEPTH} levels")
        for a in obj:
            if isinstance(a, torch.Tensor):
                grads.append(a.grad)
            elif isinstance(a, (list, tuple)):
                collect(a, depth + 1)

    collect(args)
    return grads
