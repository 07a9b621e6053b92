"""What the free_benchmark runners of both frameworks share (docs/free_benchmark.md): the settings,
the C++ judge (msprobe._core.FreeBenchmarkChecker, which writes free_benchmark.csv and the
summary), the wrapper that hands a selected call to the framework's runner while the probe is on,
the once-per-API warnings and the end of the run. Each framework's runner adds `call()`: the
perturbation and the second run with its own ops."""
from msprobe import _core
from msprobe.core import log


class FuzzRunnerBase:
    FRAMEWORK = None  # "pytorch" or "mindspore"

    def __init__(self, cfg, state, library_prefixes):
        fb = cfg.free_benchmark
        self.mode = fb.pert_mode
        self.fix = fb.handler_type == "fix"
        self.backward = fb.fuzz_stage == "backward"
        self.state = state
        self.checker = _core.FreeBenchmarkChecker(cfg, self.FRAMEWORK, library_prefixes)
        self.rank = 0
        self._warned = set()

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

    def call(self, original, api_name, args, kwargs):
        raise NotImplementedError

    def _warn_once(self, key, msg):
        if key not in self._warned:
            self._warned.add(key)
            log.warning(msg)

    def finish(self, final):
        """Writes free_benchmark_summary.json; at the end of the run, says what was found."""
        self.checker.write_summary()
        if final:
            log.info(self.checker.end_line())
