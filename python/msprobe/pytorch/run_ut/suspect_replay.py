"""compare's "the API or its inputs?": a first-divergence suspect replayed in float64 on each run's
own dumped inputs, with run_ut's replay machinery (the arguments rebuilt by data_generate, the API
looked up and called by replay). compare's C++ job calls `replay_float64` for the first API
suspects when both dumps hold tensors, and judges the returned outputs with its own metrics
(compare/replay_verdict.h); nothing is measured here.

A backward suspect is replayed as the dump recorded it: the dump hooks the autograd node of the
API's (first) output and records the gradients that reached the node ("input") and those it
passed on ("output", in the node's order, e.g. bias, input, weight^T for linear). The replay
rebuilds the forward with the recorded requires_grad flags, hooks its node the same way and runs
the engine from the node's outputs with the dumped incoming gradients, so the gradients it
returns come in the dump's order and shapes.
"""
import torch

from msprobe.pytorch.run_ut import replay as ru
from msprobe.pytorch.run_ut.data_generate import ArgBuilder, preprocess_record

SEED = 1234  # random APIs (dropout, ...) draw the same numbers on both replays


def _float64(t):
    return t.detach().to(torch.float64) if t.is_floating_point() else t.detach()


def _tensors_in(out, found, depth=0):
    if depth > ru.MAX_DEPTH:
        raise ValueError(f"outputs nested more than {ru.MAX_DEPTH} levels")
    if isinstance(out, torch.Tensor):
        found.append(out)
    elif isinstance(out, (list, tuple)):
        for x in out:
            _tensors_in(x, found, depth + 1)
    return found


def _float64_grad(t):
    """A float64 copy that records its gradient when the dumped tensor required one; the clone
    keeps in-place APIs off the leaf."""
    x = _float64(t)
    if t.requires_grad and x.is_floating_point():
        x = x.requires_grad_().clone()
    return x


def _arguments(api_name, record, builder, need_grad):
    record = preprocess_record(api_name, record)
    kwargs = builder.kwargs(record.get("input_kwargs"))
    args = builder.args(record.get("input_args") or [], need_grad)
    cast = _float64_grad if need_grad else _float64
    return ru._map_tensors(args, cast), {k: ru._map_tensors(v, cast) for k, v in kwargs.items()}


def _replay_one(fn, api_name, record, tensor_dir):
    builder = ArgBuilder(api_name, tensor_dir)
    args, kwargs = _arguments(api_name, record, builder, False)
    torch.manual_seed(SEED)
    with torch.no_grad():
        return [t.detach().contiguous() for t in _tensors_in(ru.exec_api(fn, args, kwargs), [])]


def _replay_backward(fn, api_name, record, grad_record, tensor_dir):
    builder = ArgBuilder(api_name, tensor_dir)
    args, kwargs = _arguments(api_name, record, builder, True)
    incoming = builder.args(grad_record.get("input") or [], False, "backward input")
    torch.manual_seed(SEED)
    with torch.enable_grad():
        outs = _tensors_in(ru.exec_api(fn, args, kwargs), [])
        node = outs[0].grad_fn if outs else None
        if node is None:
            raise ValueError("the replayed output has no autograd node (no input requires grad)")
        passed_on = []
        node.register_hook(lambda grad_inputs, grad_outputs: passed_on.extend(grad_inputs))
        roots, grads = [], []
        for t in outs:   # the node's outputs, by their place among its outputs
            if t.grad_fn is node and t.output_nr < len(incoming) and isinstance(incoming[t.output_nr], torch.Tensor):
                roots.append(t)
                grads.append(_float64(incoming[t.output_nr]))
        if not roots:
            raise ValueError("the backward entry holds no gradient for the replayed outputs")
        torch.autograd.backward(roots, grads)
    return [g.detach().contiguous() for g in passed_on if g is not None]


def replay_float64(entry, api_type, api_name, npu_record, bench_record, npu_tensor_dir, bench_tensor_dir,
                   npu_grad_record=None, bench_grad_record=None):
    """(outputs on the NPU run's inputs, outputs on the bench run's inputs): the API `entry`
    ("Functional.gelu.2.forward") run on the CPU in float64; for a backward entry (grad records
    given), the gradients its autograd node passes on. Raises when it cannot be replayed (an API
    run_ut does not know, a missing tensor file, ...)."""
    fn = ru.get_api_function(api_type, api_name, "cpu", benchmark=True)
    if npu_grad_record is None:
        return (_replay_one(fn, api_name, npu_record, npu_tensor_dir),
                _replay_one(fn, api_name, bench_record, bench_tensor_dir))
    return (_replay_backward(fn, api_name, npu_record, npu_grad_record, npu_tensor_dir),
            _replay_backward(fn, api_name, bench_record, bench_grad_record, bench_tensor_dir))
