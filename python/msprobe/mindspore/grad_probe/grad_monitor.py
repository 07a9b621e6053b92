"""debugger.monitor(optimizer) for task grad_probe on MindSpore (PyNative), as 1.2.1 documents it:
a forward pre-hook on the optimizer receives the step's gradients (in the order of the optimizer's
parameters) and hands them to the C++ core in one call (msprobe._core.GradStepWriter), which reads
each once and writes grad_summary_{step}.csv and, at L1/L2, step{step}/{param}.npy. Every call of
the optimizer is a step, counted from 0.

Host gradients are read where they are (asnumpy is a view of a CPU tensor; bfloat16 goes through
DLPack). Gradients on an accelerator reach the host through the dump's device path
(MsDeviceRecorder.host_views): one transfer per dtype, concatenated on the device
(MSPROBE_FORCE_DEVICE_PATH=1 sends CPU gradients that way too, a testing aid).

Static graph mode (mindspore.GRAPH_MODE): cell hooks do not run, so the optimizer's own Python
call is wrapped instead (its class is swapped for a subclass of the same name whose __call__
records the gradients, then calls the original): an optimizer that the training script calls
is recorded as in PyNative. One compiled into a larger graph (a TrainOneStepCell) is never called
from Python; stop() says so when no step was seen. (1.2.1 compiles TensorDump into the optimizer
instead, which does not compile on MindSpore 2.10's CPU; docs/grad_probe.md.)"""
import os
import shutil

import mindspore as ms

from msprobe import _core
from msprobe.core import log
from msprobe.mindspore.device_stats import MsDeviceRecorder, on_accelerator


def _rank():
    try:
        from mindspore.communication import get_rank
        return int(get_rank())
    except Exception:  # noqa: BLE001  not distributed (1.2.1: rank 0)
        return 0


class GradientMonitor:
    def __init__(self, config):
        self.config = config
        self.param_list = set(config.grad_probe.param_list)
        self.steps = set(config.step)
        self.ranks = set(config.rank)
        self.step = 0
        self.names = []
        self.rank = 0
        self.failed = False
        self.handles = []
        self.wrapped = []      # (optimizer, its class) wrapped in static graph mode
        self.graph_mode = False
        self.said_nothing = False
        if os.path.isdir(config.dump_path):
            log.warning("The output_path exists, the data will be covered.")   # 1.2.1's words
        self.writer = _core.GradStepWriter(config.grad_probe, config.dump_path, 0)
        self.recorder = MsDeviceRecorder(copy_tensors=True, accelerator=on_accelerator())

    def monitor(self, opt):
        if hasattr(opt, "_parameters"):
            params = opt._parameters
        elif hasattr(opt, "parameters"):
            params = opt.parameters
        else:
            raise ValueError("Given optimizer has no attributes: '_parameters' or 'parameters'. "
                             "Please check the type of the given optimizer.")
        self.names = [p.name for p in params]
        self.rank = _rank()
        self.writer = _core.GradStepWriter(self.config.grad_probe, self.config.dump_path, self.rank)
        save_dir = self.writer.rank_dir
        if os.path.exists(save_dir):
            log.warning(f"Delete existing path {save_dir}.")
            shutil.rmtree(save_dir)
        if ms.get_context("mode") == ms.GRAPH_MODE:
            self.graph_mode = True
            self._wrap_call(opt)
            return
        self.handles.append(opt.register_forward_pre_hook(self._hook))

    def _wrap_call(self, opt):
        """Static graph mode: the optimizer's Python call records its gradients first."""
        cls = type(opt)
        if getattr(cls, "_msprobe_grad_probe", False):
            return
        monitor = self

        def __call__(self, *args, **kwargs):
            if args:
                monitor._hook(self, args)
            return cls.__call__(self, *args, **kwargs)

        opt.__class__ = type(cls.__name__, (cls,), {"__call__": __call__, "_msprobe_grad_probe": True,
                                                    "__module__": cls.__module__, "__doc__": cls.__doc__})
        self.wrapped.append((opt, cls))

    def stop(self):
        """Every step's files are complete when the optimizer runs; in static graph mode, says
        when no optimizer call was seen."""
        if self.graph_mode and self.step == 0 and not self.said_nothing:
            self.said_nothing = True
            log.warning("grad_probe: no optimizer step was recorded: in static graph mode it records an "
                        "optimizer that the training script calls, not one compiled into a larger graph "
                        "(a TrainOneStepCell)")

    def remove(self):
        for h in self.handles:
            h.remove()
        self.handles = []
        for opt, cls in self.wrapped:
            opt.__class__ = cls
        self.wrapped = []

    def _hook(self, cell, inputs):
        if self.failed:
            return
        try:
            self._record(inputs[0])
        except Exception as exc:  # noqa: BLE001  the probe never breaks training
            self.failed = True
            log.error(f"grad_probe: internal error, gradients are no longer recorded and training "
                      f"continues: {type(exc).__name__}: {exc}")

    def _record(self, gradients):
        step = self.step
        self.step += 1
        if (self.steps and step not in self.steps) or (self.ranks and self.rank not in self.ranks):
            return
        wanted = self.param_list
        names, grads = [], []
        for name, grad in zip(self.names, gradients):
            if wanted and name not in wanted:
                continue
            names.append(name)
            grads.append(grad)
        with self.recorder.host_views(grads) as host:
            files = self.writer.write_step(step, names, host)
        log.info(f"write grad data to {files.csv_path}")
