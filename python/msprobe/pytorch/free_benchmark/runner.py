"""The free_benchmark wrappers and handlers for PyTorch.

A selected call runs as the user wrote it; then, with this thread's recording suppressed, without
autograd and with the RNG state of the call, the API runs again on perturbed inputs
(perturbation.py). Handler `check` hands each output pair to the C++ judge, which writes
free_benchmark.csv; handler `fix` gives training the second result instead. In-place APIs are
run again on copies of what they received (taken before the call), never on the tensors they
updated; the arguments of the user's call are never written to.
"""
import torch

from msprobe import _core
from msprobe.core import log
from msprobe.pytorch.free_benchmark.perturbation import cpu_call, first_valid_index, perturbed_call

_INPLACE_DUNDERS = frozenset(
    f"__i{op}__" for op in ("add", "sub", "mul", "div", "truediv", "floordiv", "mod", "pow", "and", "or",
                            "xor", "lshift", "rshift", "matmul"))


def is_inplace(api_name, kwargs=None):
    """Tensor.add_, Torch.relu_, Tensor.__iadd__, Tensor.__setitem__, or a call with inplace=True:
    the API writes into its first argument."""
    short = api_name.rsplit(".", 1)[-1]
    return ((short.endswith("_") and not short.endswith("__")) or short in _INPLACE_DUNDERS
            or short == "__setitem__" or bool(kwargs and kwargs.get("inplace") is True))


# APIs that write into arguments other than their first: batch/instance norm in training mode
# update the running statistics they are given.
_WRITES_OTHER_ARGS = frozenset({"batch_norm", "instance_norm", "native_batch_norm", "_native_batch_norm_legit",
                                "_batch_norm_impl_index"})


def writes_other_args(api_name):
    return api_name.rsplit(".", 1)[-1] in _WRITES_OTHER_ARGS


def never_rerun(api_name):
    """Collectives (Distributed.*) are not run a second time: the other ranks would not take part,
    and they write into their arguments."""
    return api_name.startswith("Distributed.")


def _copy_tensors(value):
    if isinstance(value, torch.Tensor):
        return value.detach().clone()
    if isinstance(value, (list, tuple)):
        return type(value)([_copy_tensors(v) for v in value])
    return value


def _received(args):
    """What an in-place API received, kept before it writes: a copy of its first argument (the
    tensor, or the tensors of the list, it writes into); the other arguments are only read, and
    the second run comes right after the call, so they are passed as they are, except where they
    are the written tensor itself (x.add_(x))."""
    if not args:
        return args
    target = args[0]
    copy = _copy_tensors(target)
    return (copy,) + tuple(copy if a is target else a for a in args[1:])


def _is_float_output(out):
    if isinstance(out, torch.Tensor):
        return torch.is_floating_point(out)
    if isinstance(out, (list, tuple)):
        return any(isinstance(v, torch.Tensor) and torch.is_floating_point(v) for v in out)
    return False


def _first_tensor(value):
    if isinstance(value, torch.Tensor):
        return value
    if isinstance(value, (list, tuple)):
        for v in value:
            t = _first_tensor(v)
            if t is not None:
                return t
    if isinstance(value, dict):
        for v in value.values():
            t = _first_tensor(v)
            if t is not None:
                return t
    return None


class _Rng:
    """The generator state a call saw, to give its second run the same random numbers and to
    leave training's generators as they were after the call."""
    __slots__ = ("cpu", "device", "dev_state")

    def __init__(self, args):
        self.cpu = torch.get_rng_state()
        t = _first_tensor(args)
        self.device = t.device if t is not None and t.device.type == "cuda" else None
        self.dev_state = torch.cuda.get_rng_state(self.device) if self.device is not None else None

    def swap(self):
        """Puts this state in place; returns the state it replaced."""
        now = _Rng.__new__(_Rng)
        now.cpu = torch.get_rng_state()
        now.device = self.device
        now.dev_state = torch.cuda.get_rng_state(self.device) if self.device is not None else None
        torch.set_rng_state(self.cpu)
        if self.device is not None:
            torch.cuda.set_rng_state(self.dev_state, self.device)
        return now


def _replace_output(original, perturbed):
    """fix: the perturbed result written into the original output objects (1.2.1 sets .data, so the
    output keeps its place in the autograd graph)."""
    if isinstance(original, torch.Tensor) and isinstance(perturbed, torch.Tensor):
        original.data = perturbed.to(original.dtype).to(original.device)
        return original
    if isinstance(original, dict) and isinstance(perturbed, dict):
        missing = [k for k in original if k not in perturbed]
        if missing:
            raise ValueError(f"'{missing[0]}' not in perturbed output")
        return {k: _replace_output(v, perturbed[k]) for k, v in original.items()}
    if isinstance(original, (list, tuple)) and isinstance(perturbed, (list, tuple)):
        if len(original) != len(perturbed):
            raise ValueError(f"the perturbed output has {len(perturbed)} items, the original {len(original)}")
        return type(original)([_replace_output(o, p) for o, p in zip(original, perturbed)])
    raise ValueError(f"outputs of types ({type(original).__name__}, {type(perturbed).__name__}) cannot be "
                     "replaced")


class FuzzRunner:
    """One free_benchmark run: wraps the catalogue's APIs and judges their calls."""

    def __init__(self, cfg, state, library_prefixes):
        fb = cfg.free_benchmark
        self.mode = fb.pert_mode
        self.fix = fb.handler_type == "fix"
        self.backward = fb.fuzz_stage == "backward"
        self.on_cpu = fb.fuzz_device == "cpu"
        self.preheat = fb.if_preheat and not self.fix
        self.state = state
        self.checker = _core.FreeBenchmarkChecker(cfg, "pytorch", library_prefixes)
        self.rank = 0
        self._warned = set()

    # ---- wrappers ------------------------------------------------------------------------------
    def make_wrapper(self, original, api_name):
        state = self.state
        runner = self

        def wrapper(*args, **kwargs):
            if not state.active or state.busy:
                return original(*args, **kwargs)
            return runner.call(original, api_name, args, kwargs)
        wrapper.__msprobe_original__ = original
        try:
            wrapper.__name__ = getattr(original, "__name__", api_name)
            wrapper.__doc__ = getattr(original, "__doc__", None)
        except (AttributeError, TypeError):
            pass
        return wrapper

    def _warn_once(self, key, msg):
        if key not in self._warned:
            self._warned.add(key)
            log.warning(msg)

    def call(self, original, api_name, args, kwargs):
        state = self.state
        session = state.session
        if state.failed:
            session.count_unrecorded()
            return original(*args, **kwargs)
        was_busy = state.busy
        state.busy = True
        idx, name, saved, rng = -1, api_name, None, None
        try:
            idx = session.api_pre(api_name, None, None)
            if idx >= 0:
                name = f"{api_name}.{idx}." + ("backward" if self.backward else "forward")
                if session.selects(name) and not never_rerun(api_name) and first_valid_index(args) >= 0:
                    rng = _Rng(args)
                    # What an in-place API really received, before it writes into it.
                    if is_inplace(api_name, kwargs):
                        saved = (_received(args), kwargs)
                    elif writes_other_args(api_name):  # the second run gets its own running statistics
                        saved = (tuple(args[:1]) + tuple(_copy_tensors(a) for a in args[1:]),
                                 {k: _copy_tensors(v) for k, v in kwargs.items()})
        except Exception as e:  # noqa: BLE001  a fault of the probe: reported once, training goes on
            state.on_error(e, f"{api_name}.forward")
            idx = -1
        try:
            out = original(*args, **kwargs)
        finally:
            state.busy = was_busy
        if idx < 0:
            return out
        state.busy = True
        try:
            session.api_post(api_name, idx, None)
            if rng is not None:
                call_args, call_kwargs = saved if saved is not None else (args, kwargs)
                if self.backward:
                    self._attach_backward(name, original, call_args, call_kwargs, out, rng)
                else:
                    out = self._forward(name, original, call_args, call_kwargs, out, rng)
        except Exception as e:  # noqa: BLE001
            state.on_error(e, f"{api_name}.{idx}.forward")
        finally:
            state.busy = was_busy
        return out

    # ---- the second run ------------------------------------------------------------------------
    def _rerun(self, name, original, call, rng):
        args, kwargs = call
        kwargs.pop("out", None)  # never into the user's tensor
        after = rng.swap()
        try:
            with torch.no_grad():
                return original(*args, **kwargs)
        except Exception as e:  # noqa: BLE001  the API refused the perturbed inputs
            self._warn_once(("rerun", _core_api(name)),
                            f"free_benchmark: {name} could not run on the perturbed inputs ({type(e).__name__}: "
                            f"{e}); its calls are not checked")
            return None
        finally:
            after.swap()

    def _forward(self, name, original, args, kwargs, out, rng):
        with torch.no_grad():
            call = perturbed_call(self.mode, args, kwargs)
        perturbed = None if call is None else self._rerun(name, original, call, rng)
        if self.fix:
            return self._fix(name, out, perturbed)
        if perturbed is None or isinstance(perturbed, bool) or not _is_float_output(perturbed):
            return out
        self.checker.count_checked()
        step = self.state.session.current_step
        try:
            if self.preheat:
                self._preheat(name, step, original, args, kwargs, out, perturbed, rng)
            elif self.on_cpu:
                self._compare_cpu(name, step, out, perturbed)
            else:
                self._compare(name, step, out, perturbed)
        except (ValueError, TypeError) as e:  # outputs the judge cannot compare (not a write error)
            if isinstance(e, OSError):
                raise
            self._warn_once(("compare", _core_api(name)),
                            f"free_benchmark: the outputs of {name} cannot be compared ({type(e).__name__}: {e}); "
                            "its calls are not checked")
        return out

    def _fix(self, name, out, perturbed):
        if perturbed is None:
            self._warn_once(("fix", _core_api(name)),
                            f"free_benchmark: fix leaves {name} as it is ({self.mode} changes none of its inputs)")
            return out
        try:
            with torch.no_grad():
                return _replace_output(out, perturbed)
        except ValueError as e:
            self._warn_once(("fix", _core_api(name)), f"free_benchmark: fix of {name} failed: {e}")
            return out

    # ---- check -------------------------------------------------------------------------------------
    def _compare(self, name, step, out, perturbed):
        """1.2.1's comparison of each output (a tensor, or the items of a sequence); returns whether
        all agreed and the largest ratio (the preheat's sample)."""
        if isinstance(out, torch.Tensor):
            pairs = [(-1, out, perturbed)]
        elif isinstance(out, (list, tuple)) and isinstance(perturbed, (list, tuple)):
            pairs = [(i, o, perturbed[i]) for i, o in enumerate(out) if i < len(perturbed)]
        else:
            return True, 0.0
        all_ok, max_ratio = True, 0.0
        for i, o, p in pairs:
            v = self._compare_one(name, step, i, o, p)
            if v is None:
                continue
            all_ok = all_ok and v.consistent
            if not v.symbol_flipping and v.ratio == v.ratio:
                max_ratio = max(max_ratio, v.ratio)
        return all_ok, max_ratio

    def _compare_one(self, name, step, index, o, p):
        checker = self.checker
        if isinstance(p, (bool, int)) and isinstance(o, (bool, int)):
            return checker.check_number(name, step, self.rank, index, float(o), float(p), True)
        if isinstance(p, float) and isinstance(o, (int, float)):
            return checker.check_number(name, step, self.rank, index, float(o), p, False)
        if not isinstance(p, torch.Tensor) or not isinstance(o, torch.Tensor):
            return None
        o = o.detach()
        p = p.detach()
        if o.device.type == "cpu" and p.device.type == "cpu":
            return checker.check_tensor(name, step, self.rank, index, o, p)
        return self._compare_on_device(name, step, index, o, p)

    def _compare_on_device(self, name, step, index, o, p):
        """Device memory: the three reductions the judge needs, computed where the tensors are and
        read in one transfer."""
        n = o.numel()
        stats = [0.0, 1.0, 1.0]
        if n:
            with torch.no_grad():
                floor = self.checker.floor(str(p.dtype))
                o2 = o.to(p.dtype).to(p.device)
                prod = torch.min(o2 * p)
                ratio = torch.nan_to_num(o2.abs().clamp(min=floor) / p.abs().clamp(min=floor), nan=1.0)
                lo, hi = torch.aminmax(ratio)
                stats = torch.stack([prod.double(), lo.double(), hi.double()]).tolist()
        return self.checker.check_stats(name, step, self.rank, index, str(o.dtype), list(o.shape), str(p.dtype), n,
                                        *stats)

    def _compare_cpu(self, name, step, out, cpu_out):
        """to_cpu: 1.2.1's SingleCompare of the whole output against the CPU result; one row."""
        worst = []
        if not self._agrees(out, cpu_out, worst):
            self.checker.add_benchmark_row(name, step, self.rank, out if isinstance(out, torch.Tensor) else None,
                                           worst[0] if worst else None)

    def _agrees(self, actual, golden, worst):
        if isinstance(golden, torch.Tensor):
            if not isinstance(actual, torch.Tensor):
                return False
            a = actual.detach()
            g = golden.detach()
            if a.device.type != "cpu":
                a = a.cpu()
            if g.device.type != "cpu":
                g = g.cpu()
            result = self.checker.benchmark_tensor(a, g)
            if not result.consistent:
                worst.append(result)
            return result.consistent
        if isinstance(golden, dict):
            return (isinstance(actual, dict) and len(actual) == len(golden)
                    and all(self._agrees(actual.get(k), v, worst) for k, v in golden.items()))
        if isinstance(golden, (list, tuple)):
            return (isinstance(actual, (list, tuple)) and len(actual) == len(golden)
                    and all(self._agrees(a, g, worst) for a, g in zip(actual, golden)))
        if isinstance(golden, float) and isinstance(actual, (int, float)):
            return _isclose(actual, golden)
        return actual == golden

    # ---- preheat -----------------------------------------------------------------------------------
    def _preheat(self, name, step, original, args, kwargs, out, perturbed, rng):
        checker = self.checker
        if checker.preheat_counting(name, step):
            return
        _, max_ratio = self._compare(name, step, out, perturbed)
        if not checker.preheat_take_sample(name, step):
            return
        cpu_ok = True
        cpu_out = self._rerun(name, original, cpu_call(args, kwargs), rng)
        if cpu_out is not None:
            cpu_ok = self._agrees(out, cpu_out, [])
        first = _first_tensor(out)
        if first is not None:
            checker.preheat_record(name, str(first.dtype), max_ratio, cpu_ok)

    # ---- backward stage ----------------------------------------------------------------------------
    def _attach_backward(self, name, original, args, kwargs, out, rng):
        """fuzz_stage backward: when the gradient of the call's output arrives, the API's
        vector-Jacobian product is computed on its inputs and on perturbed inputs, and the
        input gradients are compared (rows per input, output_index = the input's place among
        those that need a gradient). A call with several tensor outputs (split, topk, ...) is
        checked when they come from one autograd node: its pre-hook receives all their gradients
        at once (zeros for an output that got none), as 1.2.1's module backward hook does; other
        outputs (a tuple made of several nodes' results) are not checked."""
        several = isinstance(out, (tuple, list))
        outs = [t for t in out if isinstance(t, torch.Tensor)] if several else [out]
        if not outs or not isinstance(outs[0], torch.Tensor) or not any(t.requires_grad for t in outs):
            return
        node = next(t.grad_fn for t in outs if t.requires_grad)
        if several and (node is None or any(t.requires_grad and t.grad_fn is not node for t in outs)):
            return
        inputs = [a.detach().clone().requires_grad_(True)
                  if isinstance(a, torch.Tensor) and a.requires_grad else a for a in args]
        need = [i for i, a in enumerate(args) if isinstance(a, torch.Tensor) and a.requires_grad]
        if not need:
            return
        kwargs = dict(kwargs)
        state = self.state
        # (output_nr or None, shape, dtype, device) of each tensor output, for the vjp's v
        slots = [(t.output_nr if t.grad_fn is node else None, t.shape, t.dtype, t.device) for t in outs]

        def check(grad):
            if state.failed or state.session is None:
                return
            was_busy = state.busy
            state.busy = True
            try:
                self._check_backward(name, original, inputs, need, kwargs, grad, rng)
            except Exception as e:  # noqa: BLE001
                state.on_error(e, name)
            finally:
                state.busy = was_busy

        def on_node_grads(grad_outputs):
            grads = []
            for nr, shape, dtype, device in slots:
                g = grad_outputs[nr] if nr is not None and nr < len(grad_outputs) else None
                grads.append(g if g is not None else torch.zeros(shape, dtype=dtype, device=device))
            check(tuple(grads))
            return None

        if several:
            node.register_prehook(on_node_grads)
        else:
            out.register_hook(lambda grad: check(grad))

    def _check_backward(self, name, original, inputs, need, kwargs, grad, rng):
        kwargs.pop("out", None)
        if "inplace" in kwargs:
            kwargs["inplace"] = False

        def vjp(tensors, grad_output, others):
            def f(*xs):
                real = list(others)
                for i, x in zip(need, xs):
                    real[i] = x
                return original(*real, **kwargs)
            after = rng.swap()
            try:
                return torch.autograd.functional.vjp(f, tuple(tensors), grad_output)[1]
            finally:
                after.swap()

        tensors = [inputs[i].detach().requires_grad_(True) for i in need]
        others = [None if i in need else a for i, a in enumerate(inputs)]
        try:
            origin_grads = vjp(tensors, grad, others)
            call = perturbed_call(self.mode, (tensors, grad, others), {}, backward=True)
            if call is None:
                return
            (p_tensors, p_grad, p_others), _ = call
            p_tensors = [t.detach().requires_grad_(True) for t in p_tensors]
            perturbed_grads = vjp(p_tensors, p_grad, p_others)
        except Exception as e:  # noqa: BLE001  the API's backward refused the perturbed inputs
            self._warn_once(("vjp", _core_api(name)),
                            f"free_benchmark: the gradient of {name} could not be computed ({type(e).__name__}: {e})")
            return
        self.checker.count_checked()
        step = self.state.session.current_step
        try:
            self._compare_backward(name, step, origin_grads, perturbed_grads)
        except (ValueError, TypeError) as e:
            if isinstance(e, OSError):
                raise
            self._warn_once(("compare", _core_api(name)),
                            f"free_benchmark: the gradients of {name} cannot be compared ({type(e).__name__}: {e})")

    def _compare_backward(self, name, step, origin_grads, perturbed_grads):
        # 1.2.1's two passes: the inputs' gradients one by one until one disagrees (a row without
        # output_index), then, if one did, all of them (a row per disagreeing input).
        for o, p in zip(origin_grads, perturbed_grads):
            v = self._compare_one(name, step, -1, o, p)
            if v is not None and not v.consistent:
                self._compare(name, step, tuple(origin_grads), tuple(perturbed_grads))
                break

    # ---- end of the run --------------------------------------------------------------------------
    def finish(self, final):
        """Writes free_benchmark_summary.json; at the end of the run, says what was found."""
        self.checker.write_summary()
        if final:
            log.info(self.checker.end_line())


def _core_api(name):
    return name.rsplit(".", 2)[0]


def _isclose(a, b):
    import math
    return math.isclose(a, b)
