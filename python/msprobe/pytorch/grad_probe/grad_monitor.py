"""debugger.monitor(model) for task grad_probe: before every optimizer step (any optimizer, as in
1.2.1: torch's global optimizer step pre-hook) the step's gradients are handed to the C++ core in
one call (msprobe._core.GradStepWriter), which reads each once and writes grad_summary_{step}.csv
and, at L1/L2, step{step}/{param}.npy.

Gradients in accelerator memory reach the host through the dump's device path
(TorchDeviceRecorder.host_views): one transfer per device and dtype into the recorder's reusable
pinned buffers, and the core reads views of that copy. CPU gradients are read where they are
(zero copy). MSPROBE_FORCE_DEVICE_PATH=1 sends CPU gradients through the accelerator's way too
(a testing aid, core/device_path.py)."""
import os

import torch
from torch.optim.optimizer import register_optimizer_step_pre_hook

from msprobe import _core
from msprobe.core import device_path, log
from msprobe.pytorch.device_stats import TorchDeviceRecorder


def _rank():
    if torch.distributed.is_available() and torch.distributed.is_initialized():
        return torch.distributed.get_rank()
    return 0


def _on_rank_0(msg):
    if _rank() == 0:
        log.info(msg)


class GradientMonitor:
    def __init__(self, config):
        gp = config.grad_probe
        self.config = config
        self.param_list = set(gp.param_list)
        self.steps = set(config.step)
        self.ranks = set(config.rank)
        self.step = -1
        self.params = []   # (parameter, name) of the monitored models
        self.writer = None
        self.handle = None
        self.failed = False
        self.recorder = TorchDeviceRecorder(copy_tensors=True, forced=device_path.forced())
        log.info(f"target rank {list(config.rank)}")
        log.info(f"target step {list(config.step)}")
        if os.path.exists(config.dump_path):
            log.warning(f"the file in {config.dump_path} will be recoverd")   # 1.2.1's words
        # Made now, as 1.2.1 does; the files of a step replace earlier ones of the same name.
        self.writer = _core.GradStepWriter(gp, config.dump_path, 0)

    def monitor(self, model):
        if not isinstance(model, torch.nn.Module):
            raise TypeError(f"monitor(model): model must be a torch.nn.Module, got {type(model).__name__}")
        _on_rank_0("> parameter names:")
        for name, param in model.named_parameters():
            self.params.append((param, name))
            _on_rank_0(f"\t{name}")
        rank = _rank()
        if torch.distributed.is_available() and torch.distributed.is_initialized() \
                and self.ranks and rank not in self.ranks:
            return
        self.writer = _core.GradStepWriter(self.config.grad_probe, self.config.dump_path, rank)
        if self.handle is None:
            self.handle = register_optimizer_step_pre_hook(self._pre_step)

    def stop(self):
        """Nothing to finish: every step's files are complete when the step's hook returns."""

    def remove(self):
        if self.handle is not None:
            self.handle.remove()
            self.handle = None

    def _pre_step(self, optimizer, args, kwargs):
        if self.failed:
            return
        try:
            self._record_step()
        except Exception as exc:  # noqa: BLE001  the probe never breaks training
            self.failed = True
            log.error(f"grad_probe: internal error, gradients are no longer recorded and training "
                      f"continues: {type(exc).__name__}: {exc}")

    def _record_step(self):
        self.step += 1
        log.info(f"grad_probe: optimizer step {self.step}")
        if self.steps and self.step not in self.steps:
            return
        names, grads = [], []
        wanted = self.param_list
        for param, name in self.params:
            if wanted and name not in wanted:
                continue
            grad = param.main_grad if hasattr(param, "main_grad") else param.grad
            if grad is None:
                log.info(f"grad is None: {name}")
                continue
            names.append(name)
            grads.append(grad)
        with self.recorder.host_views(grads) as host:
            files = self.writer.write_step(self.step, names, host)
        log.info(f"write grad data to {files.csv_path}")
