"""compare's "the API or its inputs?": a first-divergence suspect replayed in float64 on each run's
own dumped inputs, with run_ut's replay machinery (the arguments rebuilt by data_generate, the API
looked up and called by replay). compare's C++ job calls `replay_float64` for the first forward
API suspects when both dumps hold tensors, and judges the returned outputs with its own metrics
(compare/replay_verdict.h); nothing is measured here.
"""
import torch

from msprobe.pytorch.run_ut import replay as ru
from msprobe.pytorch.run_ut.data_generate import ArgBuilder, preprocess_record

SEED = 1234  # random APIs (dropout, ...) draw the same numbers on both replays


def _float64(t):
    return t.detach().to(torch.float64) if t.is_floating_point() else t.detach()


def _tensor_outputs(out, found, depth=0):
    if depth > ru.MAX_DEPTH:
        raise ValueError(f"outputs nested more than {ru.MAX_DEPTH} levels")
    if isinstance(out, torch.Tensor):
        found.append(out.detach().contiguous())
    elif isinstance(out, (list, tuple)):
        for x in out:
            _tensor_outputs(x, found, depth + 1)
    return found


def _replay_one(fn, api_name, record, tensor_dir):
    record = preprocess_record(api_name, record)
    builder = ArgBuilder(api_name, tensor_dir)
    kwargs = builder.kwargs(record.get("input_kwargs"))
    args = builder.args(record.get("input_args") or [], False)
    args = ru._map_tensors(args, _float64)
    kwargs = {k: ru._map_tensors(v, _float64) for k, v in kwargs.items()}
    torch.manual_seed(SEED)
    with torch.no_grad():
        return _tensor_outputs(ru.exec_api(fn, args, kwargs), [])


def replay_float64(entry, api_type, api_name, npu_record, bench_record, npu_tensor_dir, bench_tensor_dir):
    """(outputs on the NPU run's inputs, outputs on the bench run's inputs): the API `entry`
    ("Functional.gelu.2.forward") run on the CPU in float64. Raises when it cannot be replayed
    (an API run_ut does not know, a missing tensor file, ...)."""
    fn = ru.get_api_function(api_type, api_name, "cpu", benchmark=True)
    return (_replay_one(fn, api_name, npu_record, npu_tensor_dir),
            _replay_one(fn, api_name, bench_record, bench_tensor_dir))
