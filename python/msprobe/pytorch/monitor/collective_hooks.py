"""cc_distribution (1.2.1's communication monitoring): while the monitor runs, the collectives of
torch.distributed are wrapped. Each call hands its tensors to the core's CollectiveStats: after
the call ("post_i"; an asynchronous call when its work is waited on) and, with cc_pre_hook, before
it ("pre_i"). The core aggregates the calls of a step; before the optimizer's step they become
the step's rows of the "other" prefix ({collective}/rank{R}/{pre|post}_{i}). cc_codeline keeps
the calls whose call stack matches one of its regular expressions; cc_log_only only notes which
collectives are called from where, logs it after the first step and stops the monitor."""
import functools
import json
import re
import sys
import threading

import torch
import torch.distributed as dist

from msprobe import _core
from msprobe.core import log
from msprobe.pytorch.monitor.module_names import tag

# 1.2.1's list (distributed_ops.yaml); the names this torch lacks are left alone.
COLLECTIVES = ("send", "recv", "isend", "irecv", "batch_isend_irecv", "broadcast", "all_reduce", "reduce",
               "scatter", "reduce_scatter", "_reduce_scatter_base", "reduce_scatter_tensor", "all_gather",
               "gather", "_all_gather_base", "all_gather_into_tensor")
# 1.2.1 summarises the collectives' tensors with this eps whatever the config's eps is.
COLLECTIVE_EPS = 1e-8
# Frames 1.2.1 leaves out of the stacks it matches and logs (stack_blacklist.yaml), and ours.
_HIDDEN_FRAME = re.compile(r"msprobe/pytorch/monitor/distributed|site-packages/torch/nn/modules/module\.py"
                           r"|multiprocessing|debugpy")
_THIS_FILE = __file__


def call_stack():
    """The stack of the collective's caller as 1.2.1 writes it: "path[line]   function", the
    innermost frame first."""
    lines = []
    frame = sys._getframe(1)
    while frame is not None:
        path = frame.f_code.co_filename
        where = f"{path}[{frame.f_lineno}]"
        if path != _THIS_FILE and not _HIDDEN_FRAME.search(where):
            lines.append(f"{where}   {frame.f_code.co_name}")
        frame = frame.f_back
    return lines


def _tensor_groups(values):
    """The tensor arguments of a call as 1.2.1 takes them: a tensor, or a list of tensors or of
    P2POps (its tensors as one); other arguments are skipped."""
    for v in values:
        if isinstance(v, torch.Tensor):
            yield [v]
        elif isinstance(v, list) and v and all(isinstance(x, torch.Tensor) for x in v):
            yield v
        elif isinstance(v, list) and v and all(isinstance(x, dist.P2POp) for x in v):
            yield [x.tensor for x in v]


class _PendingCall:
    """An asynchronous call, summarised once all its works have been waited on."""

    def __init__(self, record, works):
        self.record, self.left = record, len(works)

    def waited(self):
        self.left -= 1
        if self.left == 0:
            self.record()


class CollectiveHooks:
    def __init__(self, monitor):
        self.monitor = monitor
        self.stats = None
        self.codeline, self.pre, self.log_only = [], False, False
        self.logged = {}        # cc_log_only: collective -> {stack: None}, first seen first
        self.patched = []       # (namespace, name, original)
        self.pending = {}       # work -> _PendingCall
        self.original_wait = None
        self.steps = 0
        self.local = threading.local()

    @property
    def installed(self):
        return bool(self.patched)

    def install(self, config):
        self.remove()   # monitor_gnorm_with_ad called again: wrap the originals, not our wrappers
        try:
            self.codeline = [re.compile(p) for p in config.cc_codeline]
        except re.error as exc:
            log.error(f"monitor config: \"cc_distribution.cc_codeline\" has a bad regular expression ({exc}); "
                      f"the collectives are not monitored")
            return
        self.pre, self.log_only = config.cc_pre_hook, config.cc_log_only
        self.stats = _core.CollectiveStats(list(config.ops), COLLECTIVE_EPS)
        self.logged, self.steps = {}, 0
        for name in COLLECTIVES:
            original = getattr(dist, name, None)
            if original is None:
                continue
            wrapped = self._wrap(name, original)
            for namespace in (dist, dist.distributed_c10d):
                if getattr(namespace, name, None) is original:
                    self.patched.append((namespace, name, original))
                    setattr(namespace, name, wrapped)
        self.original_wait = original_wait = dist.Work.wait
        hooks = self

        @functools.wraps(original_wait)
        def wait(work, *args, **kwargs):
            done = original_wait(work, *args, **kwargs)
            call = hooks.pending.pop(work, None)
            if call is not None:
                with hooks.monitor.guard():
                    call.waited()
            return done

        dist.Work.wait = wait

    def remove(self):
        for namespace, name, original in reversed(self.patched):
            setattr(namespace, name, original)
        self.patched = []
        if self.original_wait is not None:
            dist.Work.wait = self.original_wait
            self.original_wait = None
        self.pending.clear()
        if self.stats is not None:
            self.stats.clear()

    def before_step(self):
        """At the optimizer's step: the calls since the last step become this step's "other"
        rows when the step is collected (forgotten otherwise); cc_log_only logs what it saw
        once the first step is over, then the monitor stops."""
        mon = self.monitor
        self.steps += 1
        if self.log_only:
            if self.steps > 1:
                mon._on_rank_0("> Used communication ops and corresponding stack")
                mon._on_rank_0(json.dumps({k: [s.split(";") for s in v] for k, v in self.logged.items()}))
                log.warning("monitor: cc_log_only is done (the collectives and their stacks are logged); "
                            "the monitor stops and training goes on")
                mon._remove_all_hooks()
            return
        if mon.collecting:
            self.stats.move_into(mon.writer, "other")
        else:
            self.stats.clear()

    def _wrap(self, name, original):
        hooks = self

        @functools.wraps(original)
        def collective(*args, **kwargs):
            # A collective called by another one (batch_isend_irecv calls its P2POps' isend and
            # irecv on gloo) is part of the outer call.
            if getattr(hooks.local, "inside", False) or not hooks.monitor.monitoring:
                return original(*args, **kwargs)
            hooks.local.inside = True
            try:
                values = args + tuple(kwargs.values())
                wanted = False
                with hooks.monitor.guard():
                    wanted = hooks._before(name, values)
                out = original(*args, **kwargs)
                if wanted:
                    with hooks.monitor.guard():
                        hooks._after(name, values, out)
                return out
            finally:
                hooks.local.inside = False

        return collective

    def _before(self, name, values):
        """Notes the call (cc_log_only) or summarises its inputs (cc_pre_hook); True when its
        outputs are wanted."""
        if self.log_only:
            self.logged.setdefault(name, {})[";".join(call_stack())] = None
            return False
        if self.codeline:
            stack = ";".join(call_stack())
            if not any(p.search(stack) for p in self.codeline):
                return False
        if self.pre:
            self._record(name, values, "pre")
        return True

    def _after(self, name, values, out):
        record = functools.partial(self._record, name, values, "post")
        works = out if isinstance(out, list) else [out]
        works = [w for w in works if isinstance(w, dist.Work)]
        if not works:
            record()
            return
        call = _PendingCall(record, works)
        for w in works:
            self.pending[w] = call

    def _record(self, name, values, prefix):
        groups = list(_tensor_groups(values))
        if not groups:
            return
        mon = self.monitor
        tags = [tag(name, f"{prefix}_{i}", mon.rank) for i in range(len(groups))]
        with mon.on_host([t for g in groups for t in g]) as host:
            it = iter(host)
            self.stats.add(tags, [[next(it) for _ in g] for g in groups])
