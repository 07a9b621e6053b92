"""The monitor's hooks on modules (activations and their gradients, "xy") and on parameters (each
weight gradient when it is accumulated, before any data-parallel reduction: grad_unreduced).
A module's gradients are read off the autograd graph (msprobe/pytorch/module_backward.py), not
through torch's full backward hooks, whose extra node would change training in its last bits.

Each hook hands its tensors to the C++ core in one call (MonitorWriter.add), which summarises them
at once: an activation may be changed in place later, and nothing is kept alive."""
import torch

from msprobe.core import log
from msprobe.pytorch.module_backward import BackwardWatch
from msprobe.pytorch.monitor.module_names import VPP_SEP, squash_param_name, tag

_TUPLE_SPEC = __import__("re").compile(r"tuple\[(\d+)\]:?(\d+)?")


def _current_graph_task():
    # >= 0 while the autograd engine runs: a forward seen then is a recomputation (activation
    # checkpointing), which 1.2.1 skips by reading the call stack.
    return torch._C._current_graph_task_id()


def pick(value, spec, module, what):
    """The tensor 1.2.1 looks at: a spec "tuple[N]:I" picks element I of an N-tuple, "tensor" the
    value itself; without a spec a tuple gives its first element. Anything else: None (NaN)."""
    if spec:
        m = _TUPLE_SPEC.match(spec)
        if m:
            n, i = int(m.group(1)), int(m.group(2) or 0)
            if isinstance(value, tuple) and len(value) == n and 0 <= i < n:
                value = value[i]
            else:
                log.warning(f"monitor: {module} {what} does not match the spec {spec!r} of the config")
                return None
    elif isinstance(value, tuple):
        value = value[0] if value else None
    return value if isinstance(value, torch.Tensor) else None


def param_struct(value):
    """1.2.1's description of a hook argument (print_struct): [(key, text)]."""
    if isinstance(value, (tuple, list)):
        return [("config", f"{type(value).__name__}[{len(value)}]")] + [
            (str(i), f"size={tuple(x.shape)}, dtype={x.dtype}" if isinstance(x, torch.Tensor) else f"{type(x)}")
            for i, x in enumerate(value)]
    if isinstance(value, torch.Tensor):
        return [("config", "tensor"), ("tensor", f"size={tuple(value.shape)}, dtype={value.dtype}")]
    return [("config", f"{type(value)}")]


class ModuleContext:
    __slots__ = ("name", "micro_step", "specs")

    def __init__(self, name, specs):
        self.name = name
        self.micro_step = 0
        self.specs = specs


class XYHooks:
    """Forward hooks and backward watches on the target modules of one monitor."""

    def __init__(self, mon):
        self.mon = mon
        self.handles = []

    def install(self, model_chunks):
        cfg = self.mon.config
        targets = {t.module: dict(t.specs) for t in cfg.targets}
        # 1.2.1 names targets without a stage "0:name" for every stage.
        staged = {}
        for key, specs in targets.items():
            if VPP_SEP in key:
                staged[key] = specs
            else:
                for stage in range(len(model_chunks)):
                    staged[f"{stage}{VPP_SEP}{key}"] = specs
        hooked, matched = 0, set()
        for stage, chunk in enumerate(model_chunks):
            prefix = f"{stage}{VPP_SEP}"
            for module_name, module in chunk.named_modules():
                squashed = prefix + squash_param_name(module_name, cfg.squash_name)
                if cfg.all_xy or cfg.print_struct:
                    name = squashed
                elif squashed in staged:
                    name = squashed
                elif prefix + module_name in staged:
                    name = prefix + module_name
                else:
                    continue
                matched.add(name)
                ctx = ModuleContext(name, staged.get(name, {}))
                if not cfg.backward_only:
                    self.handles.append(module.register_forward_hook(self._forward(ctx)))
                if not cfg.forward_only:
                    self._watch_backward(module, self._backward(ModuleContext(name, ctx.specs)))
                hooked += 1
        if cfg.forward_only and cfg.backward_only:
            log.warning("monitor: forward_only and backward_only are both on; only forward hooks are kept")
        self.mon._on_rank_0(f"> {hooked} modules are monitored.")
        if not cfg.all_xy:
            for key in staged:
                if key not in matched and key.split(VPP_SEP, 1)[1]:
                    log.error(f"monitor config: target {key.split(VPP_SEP, 1)[1]!r} matches no module of the model "
                              f"(module names as named_modules() gives them)")
        return hooked

    def _watch_backward(self, module, hook):
        """hook(module, grad_input, grad_output) once per backward of each forward call."""
        mon = self.mon

        def guard(fn, *args):
            with mon.guard():
                fn(*args)

        watch = BackwardWatch(lambda *_: None, hook, guard)
        self.handles.append(module.register_forward_pre_hook(lambda _, args: guard(watch.forward_begins, args)))
        self.handles.append(module.register_forward_hook(lambda m, _, out: guard(watch.forward_ends, m, out)))

    def _forward(self, ctx):
        mon = self.mon
        record = self._recorder(ctx, "actv", "input", "output")

        def hook(module, inputs, output):
            if not module.training or _current_graph_task() >= 0:
                return
            if mon.struct_pending:
                mon.note_struct(ctx.name, (("input", inputs), ("output", output)))
            elif mon.collecting:
                record(inputs, output)
        return hook

    def _backward(self, ctx):
        mon = self.mon
        record = self._recorder(ctx, "actv_grad", "input_grad", "output_grad")

        def hook(module, grad_input, grad_output):
            if mon.struct_pending:
                mon.note_struct(ctx.name, (("input_grad", grad_input), ("output_grad", grad_output)))
            elif mon.collecting:
                record(grad_input, grad_output)
        return hook

    def _recorder(self, ctx, prefix, first, second):
        """record(a, b): the statistics of the tensors a and b pick, as {name}_{micro_step}'s
        `first` and `second`, in one call into the core. 1.2.1 writes a module's activations of
        all micro-batches together (one dict per module), their gradients in call order."""
        mon = self.mon
        group = ctx.name if prefix == "actv" else ""

        def record(a, b):
            try:
                name = f"{ctx.name}_{ctx.micro_step}"
                mon.add(prefix, [tag(name, first, mon.rank), tag(name, second, mon.rank)],
                        [pick(a, ctx.specs.get(first), ctx.name, first),
                         pick(b, ctx.specs.get(second), ctx.name, second)], group)
                ctx.micro_step = (ctx.micro_step + 1) % mon.micro_batch_number
            except Exception as exc:  # noqa: BLE001  the monitor never breaks training
                mon._fail(exc)
        return record

    def remove(self):
        for h in self.handles:
            h.remove()
        self.handles.clear()


class WeightGradHooks:
    """grad_unreduced: each weight gradient once grad_acc_steps micro-batches have accumulated
    into it (a post-accumulate-grad hook), as 1.2.1's hook on the AccumulateGrad node."""

    def __init__(self, mon):
        self.mon = mon
        self.handles = []
        self.micro = {}

    def install(self, params, names):
        for param, name in zip(params, names):
            hook = self._hook(tag(name, "acc_grad", self.mon.rank))
            self.handles.append(param.register_post_accumulate_grad_hook(hook))

    def _hook(self, key):
        mon = self.mon

        def hook(param):
            if not mon.collecting:
                return
            n = self.micro.get(key, 0) + 1
            if n < mon.micro_batch_number:
                self.micro[key] = n
                return
            self.micro[key] = 0
            try:  # mon.guard() inline: this runs once per parameter and step
                mon.add("grad_unreduced", [key], [mon.grad_of(param)])
            except Exception as exc:  # noqa: BLE001
                mon._fail(exc)
        return hook

    def remove(self):
        for h in self.handles:
            h.remove()
        self.handles.clear()
        self.micro.clear()
