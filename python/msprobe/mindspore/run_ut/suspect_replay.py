"""compare's "the API or its inputs?" for a MindSpore dump: a first-divergence suspect replayed in
float64 on each run's own dumped inputs with MindSpore run_ut's machinery (its records parser,
Materializer, the PyTorch counterpart of the API and its backward rule), the twin of
msprobe/pytorch/run_ut/suspect_replay.py. As in run_ut, PyTorch on the CPU is the reference: the
Mint, MintFunctional and listed Tensor APIs run_ut checks can be replayed; others raise (the
suspect then carries the reason). A backward suspect gives the gradients of the float arguments
in order, which is how the MindSpore dump records an API's backward outputs (run_ut's rule)."""
import torch

from msprobe import _core
from msprobe.mindspore.run_ut.records import RecordError, parse_elements, parse_kwargs
from msprobe.mindspore.run_ut.replay import Materializer, _trim, api_function, run_api
from msprobe.mindspore.run_ut.run_ut import is_checkable, supported_tensor_apis

SEED = 1234  # random APIs draw the same numbers on both replays


def _float64(value):
    if isinstance(value, torch.Tensor) and value.is_floating_point():
        return value.to(torch.float64)
    if isinstance(value, tuple):
        return tuple(_float64(v) for v in value)
    return value


def _replay_one(entry, api_type, api_name, record, grad_record, tensor_dir):
    mat = Materializer(_core.reader.TensorStore(tensor_dir), False)
    args = [_float64(mat.get(e, "torch")) for e in parse_elements(record, "input_args", entry, False)]
    kwargs = {k: _float64(mat.get(v, "torch")) for k, v in parse_kwargs(record, False).items()}
    grads = None
    if grad_record is not None:
        grads = tuple(_float64(mat.get(e, "torch")) for e in parse_elements(grad_record, "input", entry, False))
    torch.manual_seed(SEED)
    outs = _trim(run_api(api_function(api_type, api_name, "torch"), args, kwargs, grads, "torch"),
                 grad_record is not None)
    return [o.value.detach().contiguous() for o in outs if isinstance(o.value, torch.Tensor)]


def replay_float64(entry, api_type, api_name, npu_record, bench_record, npu_tensor_dir, bench_tensor_dir,
                   npu_grad_record=None, bench_grad_record=None):
    """(outputs on the NPU run's inputs, outputs on the bench run's inputs) of `entry`
    ("Mint.add.0.forward") replayed with PyTorch in float64; for a backward entry (grad records
    given), the float arguments' gradients."""
    if not is_checkable(entry.rsplit(".", 1)[0], supported_tensor_apis()):
        raise RecordError(f"{api_type}.{api_name} is not an API MindSpore's run_ut replays (Mint, "
                          "MintFunctional, and the Tensor APIs of checker_support_api.yaml)")
    return (_replay_one(entry, api_type, api_name, npu_record, npu_grad_record, npu_tensor_dir),
            _replay_one(entry, api_type, api_name, bench_record, bench_grad_record, bench_tensor_dir))
