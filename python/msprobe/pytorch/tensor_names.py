"""Names for the tensors a call receives that no recorded call made: the model's parameters and
buffers, and the model's forward inputs. The C++ session notes every input row holding one in
tensor_names.json, so that compare can say "parameter `h.1.mlp.c_fc.weight` differs before any
call" instead of blaming the first call that reads it (docs/compare.md)."""
import torch

from msprobe.core import log


def _models(model):
    return [model] if isinstance(model, torch.nn.Module) else list(model)


def _tensor_leaves(prefix, value, out):
    if isinstance(value, torch.Tensor):
        out.append((prefix, value))
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            _tensor_leaves(f"{prefix}.{i}", v, out)
    elif isinstance(value, dict):
        for k, v in value.items():
            _tensor_leaves(f"{prefix}.{k}", v, out)


class ModelTensorNames:
    """Names the parameters and buffers of the model given to start() (again at every start:
    a model may gain parameters), and the arguments of each forward of its root modules."""

    def __init__(self):
        self._handles = []
        self._roots = set()

    def register(self, session, model):
        models = _models(model)
        pairs = []
        for i, m in enumerate(models):
            prefix = f"{i}." if len(models) > 1 else ""
            pairs += [(f"parameter:{prefix}{n}", t) for n, t in m.named_parameters()]
            pairs += [(f"buffer:{prefix}{n}", t) for n, t in m.named_buffers()]
        try:
            session.name_tensors("parameters", pairs)
        except Exception as e:  # a help for compare, never the training's problem
            log.warning(f"the model's parameters are not named in tensor_names.json: {e}")
        for m in models:
            if id(m) not in self._roots:
                self._roots.add(id(m))
                self._handles.append(m.register_forward_pre_hook(self._inputs_hook(session), with_kwargs=True))

    @staticmethod
    def _inputs_hook(session):
        warned = []

        def name_inputs(module, args, kwargs):
            try:
                pairs = []
                for i, a in enumerate(args):
                    _tensor_leaves(f"input:{i}", a, pairs)
                for k, v in kwargs.items():
                    _tensor_leaves(f"input:{k}", v, pairs)
                session.name_tensors("inputs", pairs)
            except Exception as e:  # a help for compare, never the training's problem (said once)
                if not warned:
                    warned.append(e)
                    log.warning(f"the model's inputs are not named in tensor_names.json: {e}")
        return name_inputs

    def remove(self):
        for h in self._handles:
            h.remove()
        self._handles, self._roots = [], set()
