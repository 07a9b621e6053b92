"""TrainerMon (1.2.1's training monitor, docs 19): statistics of activations, weight gradients,
optimizer moments and parameters along training, with anomaly alerts.

Python installs the hooks and hands tensors to the C++ core (msprobe._core.MonitorWriter): one
call per module hook, and one call per step for the weight gradients, the moments and the
parameters. The core summarises each tensor in one pass, writes the files and applies the alert
rules. The monitor never changes training: an internal error is reported once and the monitor
turns itself off."""
import contextlib
import json
import os
import uuid

import torch
import torch.distributed as dist
from torch.optim.optimizer import register_optimizer_step_post_hook, register_optimizer_step_pre_hook

from msprobe import _core
from msprobe.core import device_path, log
from msprobe.pytorch.device_stats import TorchDeviceRecorder
from msprobe.pytorch.monitor.anomaly_files import AnomalyFile
from msprobe.pytorch.monitor.collective_hooks import CollectiveHooks
from msprobe.pytorch.monitor.metric_outputs import metric_dicts, open_output
from msprobe.pytorch.monitor.mg_direction import add_mg_direction
from msprobe.pytorch.monitor.module_hooks import WeightGradHooks, XYHooks, param_struct
from msprobe.pytorch.monitor.module_names import VPP_SEP, squash_param_name, tag
from msprobe.pytorch.monitor.optimizer_state import OptimizerState
from msprobe.pytorch.monitor.output_dirs import appended_rank_dir, now_tag
from msprobe.pytorch.monitor.ur_heatmaps import UrHeatmaps, ur_enabled

DEFAULT_OUTPUT_DIR = "./monitor_output"
# The order 1.2.1 writes a step's files in (actv, then gradients, then the optimizer's state, then
# "other": mg_direction and the collectives of cc_distribution).
STEP_PREFIXES = ("actv", "actv_grad", "grad_unreduced", "grad_reduced", "exp_avg", "exp_avg_sq", "param", "other")


def output_base_dir():
    return os.getenv("MONITOR_OUTPUT_DIR", DEFAULT_OUTPUT_DIR)


def _rank():
    return dist.get_rank() if dist.is_available() and dist.is_initialized() else 0


def _distributed():
    return dist.is_available() and dist.is_initialized()


class TrainerMon:
    def __init__(self, config_file_path, process_group=None, params_have_main_grad=True, opt_ty=None):
        """params_have_main_grad: read param.main_grad where a parameter has one (Megatron), else
        param.grad; 1.2.1 read main_grad only and failed on plain PyTorch with this default.
        opt_ty: None for torch.optim optimizers, or one of 1.2.1's Megatron / DeepSpeed types."""
        self.config_file_path = config_file_path
        self.params_have_main_grad = params_have_main_grad
        self.opt_ty = opt_ty
        self.disabled = False
        self.monitoring = False
        self.collecting = False
        self.writer = None
        self.output = None
        self.anomaly_file = None
        self.rank = _rank()
        self.forced_device_path = device_path.forced()
        # The dump's device path (grad_probe's too): host views of accelerator tensors, one
        # transfer per device and dtype into reused host buffers.
        self.recorder = TorchDeviceRecorder(copy_tensors=True, forced=self.forced_device_path)
        self.step = 0
        self.has_collect_times = 0
        self.micro_batch_number = 1
        self.model = []
        self.dp_group = self.tp_group = None
        self.params, self.names, self.name2param, self.duplicate = [], [], {}, set()
        self.xy_hooks, self.wg_hooks = XYHooks(self), WeightGradHooks(self)
        self.cc_hooks = CollectiveHooks(self)
        self.optimizer = None
        self.step_handles, self.final_handles = [], []
        self.module_struct = {}     # print_struct: module -> {part: [(key, text)]}
        self.struct_pending = False
        self.config_timestamp = 0
        self.unique_id = str(uuid.uuid4())[:8]
        self.output_base_dir = output_base_dir()
        self.tensorboard_dir = os.path.join(self.output_base_dir, f"{now_tag()}-rank{self.rank}-{self.unique_id}")
        self.pp_stage, self.group_mates = 0, [0]
        self.distributed = _distributed()
        self.heatmaps = UrHeatmaps()
        self.ur_on = False
        if _distributed():
            group = process_group if process_group is not None else dist.group.WORLD
            self.pp_stage = dist.get_group_rank(group, self.rank)
            self.group_mates = dist.get_process_group_ranks(group)
        try:
            self.optimizer_state = OptimizerState(opt_ty)
            self.config = _core.load_monitor_config(str(config_file_path))
            try:
                appended = appended_rank_dir(self.config.append_output, self.output_base_dir, self.rank)
            except ValueError as exc:
                raise ValueError(f"monitor config {config_file_path}: \"append_output\": {exc}") from None
            self.tensorboard_dir = appended or self.tensorboard_dir
        except (ValueError, OSError) as exc:   # ConfigError and MsprobeFileError are ValueErrors
            log.error(f"monitor: {exc}; the monitor is off and training continues")
            self.disabled = True
            return
        for line in self.config.warnings:
            log.warning(f"monitor config {config_file_path}: {line}")
        self.dynamic_enable = os.getenv("DYNAMIC_MONITOR", "False").lower() == "true"
        if self.dynamic_enable:
            log.warning(f"DYNAMIC_MONITOR is set: the monitor starts when \"switch\" is true in {config_file_path}")
        else:
            self._set_config()
            self.monitoring = self.config.collect_times > 0

    # ---- 1.2.1's public interface -------------------------------------------------------------

    @staticmethod
    def set_wrapped_optimizer(_wrapped_optimizer):
        OptimizerState.wrapped_optimizer = _wrapped_optimizer

    def monitor_gnorm_with_ad(self, model, grad_acc_steps=1, optimizer=None, tp_group=None, dp_group=None,
                              start_iteration=0):
        if self.disabled:
            return
        with self.guard():
            self.micro_batch_number = grad_acc_steps
            self.dp_group, self.tp_group = dp_group, tp_group
            self.step = start_iteration
            self.model = model if isinstance(model, list) else [model]
            self.optimizer = optimizer
            self._hook_step_final(optimizer)
            if not self.dynamic_enable:
                self._register_hooks(optimizer)

    def generate_wgrad_metrics(self):
        """{tag: {op: value}} of the weight gradients now (post_grad), and {} (Megatron's pre_grad)."""
        if self.disabled or not self.config.wg_distribution or self.writer is None:
            return {}, {}
        self._collect_wgrads()
        return metric_dicts(self.writer.pending("grad_reduced"), self.config.ops), {}

    def generate_xy_metrics(self):
        """{tag: {op: value}} of the activations and of their gradients seen in this step."""
        if self.disabled or self.writer is None:
            return {}, {}
        ops = self.config.ops
        return metric_dicts(self.writer.pending("actv"), ops), metric_dicts(self.writer.pending("actv_grad"), ops)

    # ---- internals ----------------------------------------------------------------------------

    @contextlib.contextmanager
    def guard(self):
        """The monitor never breaks training: an internal error is reported once and the monitor
        stops."""
        try:
            yield
        except Exception as exc:  # noqa: BLE001
            self._fail(exc)

    def _fail(self, exc):
        if self.disabled:
            return
        log.error(f"monitor: internal error, the monitor stops and training continues: {type(exc).__name__}: {exc}")
        self.disabled = True
        self.collecting = self.monitoring = False
        try:
            self._remove_all_hooks()
        except Exception:  # noqa: BLE001
            pass

    def _on_rank_0(self, msg):
        ranks = list(self.config.module_ranks)
        if not _distributed() or self.rank == (min(ranks) if ranks else 0):
            log.info(msg)

    def _rank_monitored(self):
        ranks = list(self.config.module_ranks)
        return not ranks or self.rank in ranks

    def _set_config(self):
        cfg = self.config
        self.has_collect_times = 0
        self.ur_on = ur_enabled(cfg)
        if not self._rank_monitored():
            self.writer = None
            return
        self.writer = _core.MonitorWriter(self.tensorboard_dir, list(cfg.ops), cfg.eps, cfg.ndigits,
                                          cfg.step_count_per_record, list(cfg.alert_rules), cfg.format == "csv",
                                          self.rank)
        self.output = open_output(cfg.format, self.tensorboard_dir)
        if cfg.alert_dump:
            self.anomaly_file = AnomalyFile(os.path.join(self.output_base_dir, "anomaly_detected"), self.rank,
                                            self.pp_stage, self.group_mates)

    def _selected(self, step):
        cfg = self.config
        return step >= cfg.start_step and (step - cfg.start_step) % cfg.step_interval == 0

    def _update_collecting(self):
        self.collecting = (not self.disabled and self.monitoring and self.writer is not None
                           and self._selected(self.step))

    def grad_of(self, param):
        if self.params_have_main_grad:
            main = getattr(param, "main_grad", None)
            if main is not None:
                return main
        return param.grad

    @contextlib.contextmanager
    def on_host(self, tensors):
        """Host views of tensors (None kept) for a call of the core: accelerator tensors reach the
        host through the dump's device path (TorchDeviceRecorder.host_views: one transfer per
        device and dtype; MSPROBE_FORCE_DEVICE_PATH=1 sends CPU tensors that way too)."""
        tensors = [t.detach() if t is not None else None for t in tensors]
        present = [t for t in tensors if t is not None]
        if present and (self.forced_device_path or not all(t.is_cpu for t in present)):
            with self.recorder.host_views(present) as host:
                hosts = iter(host)
                yield [next(hosts) if t is not None else None for t in tensors]
        else:
            yield tensors

    def add(self, prefix, tags, tensors, group=""):
        """Hands tensors (None: not a tensor) to the core, through on_host unless all are on the
        host already (the core reads host tensors as they are). The rows of one `group` are
        written together."""
        if not self.forced_device_path and all(t is None or t.is_cpu for t in tensors):
            self.writer.add(prefix, tags, tensors, group)
            return
        with self.on_host(tensors) as host:
            self.writer.add(prefix, tags, host, group)

    def _register_param_names(self):
        cfg = self.config
        targets = [t.module for t in cfg.targets]
        self.params, self.names, self.name2param, self.duplicate = [], [], {}, set()
        for stage, chunk in enumerate(self.model):
            prefix = f"{stage}{VPP_SEP}"
            for param_name, param in chunk.named_parameters():
                if not param.requires_grad:
                    continue
                squashed = squash_param_name(param_name, cfg.squash_name)
                if not any(param_name.startswith(t) or (prefix + squashed).startswith(t) or squashed.startswith(t)
                           or (prefix + param_name).startswith(t) for t in targets):
                    continue
                name = prefix + squashed
                if name in self.name2param:
                    name = prefix + param_name
                self.params.append(param)
                self.names.append(name)
                self.name2param[name] = param
                if self.tp_group is not None and not getattr(param, "tensor_model_parallel", False) \
                        and dist.get_rank(group=self.tp_group) != 0:
                    self.duplicate.add(name)
                if self.dp_group is not None and dist.get_rank(group=self.dp_group) != 0:
                    self.duplicate.add(name)

    def _register_hooks(self, optimizer):
        self._register_param_names()
        if self._rank_monitored():
            self._hook_optimizer(optimizer)
            if self.config.wg_distribution:
                self.wg_hooks.install(self.params, self.names)
            self.struct_pending = self.config.print_struct
            if self.config.xy_distribution or self.config.print_struct:
                self.xy_hooks.install(self.model)
            if self.config.cc_enable and _distributed():
                self.cc_hooks.install(self.config)
            elif self.config.cc_enable:
                log.warning("monitor: cc_distribution needs torch.distributed initialised; the collectives are "
                            "not monitored")
        self.monitoring = True
        self._update_collecting()

    def _hook_optimizer(self, optimizer):
        def pre(opt, args, kwargs):
            if self.cc_hooks.installed:
                with self.guard():
                    self.cc_hooks.before_step()
            if self.struct_pending and self.module_struct:
                with self.guard():
                    self._save_module_struct()
            if self.collecting:
                with self.guard():
                    self._collect_optimizer_step(opt)
                    # The step's rows are all in: their csv files are written while the optimizer
                    # steps, and _step_final waits for them.
                    self.writer.begin_flush_step(STEP_PREFIXES, self.step)

        self.step_handles = self._hook_step(optimizer, pre, before=True)

    def _hook_step_final(self, optimizer):
        def final(opt, args, kwargs):
            with self.guard():
                self._step_final(opt)

        self.final_handles = self._hook_step(optimizer, final, before=False)

    @staticmethod
    def _hook_step(optimizer, fn, before):
        """fn(optimizer, args, kwargs) before / after the step of `optimizer`, of any torch
        optimizer when it is None; a non-torch optimizer (a Megatron wrapper) has its step
        wrapped on the instance."""
        if optimizer is None:
            return [(register_optimizer_step_pre_hook if before else register_optimizer_step_post_hook)(fn)]
        if isinstance(optimizer, torch.optim.Optimizer):
            return [(optimizer.register_step_pre_hook if before else optimizer.register_step_post_hook)(fn)]
        inner = optimizer.step

        def step(*args, **kwargs):
            if before:
                fn(optimizer, args, kwargs)
            out = inner(*args, **kwargs)
            if not before:
                fn(optimizer, args, kwargs)
            return out

        optimizer.step = step
        return [_InstanceStepPatch(optimizer, inner)]

    def note_struct(self, name, parts):
        """print_struct: the structure of a module's hook arguments, from its first call."""
        mine = self.module_struct.setdefault(name, {})
        for part, value in parts:
            if part not in mine:
                mine[part] = param_struct(value)

    def _save_module_struct(self):
        """print_struct: module_struct.json in MONITOR_OUTPUT_DIR after the first step, then the
        monitor stops. 1.2.1 stops training there with an exception; training goes on here."""
        self.struct_pending = False
        ranks = list(self.config.module_ranks)
        if not _distributed() or self.rank == (min(ranks) if ranks else 0):
            path = os.path.realpath(os.path.join(self.output_base_dir, "module_struct.json"))
            os.makedirs(self.output_base_dir, mode=0o750, exist_ok=True)
            _core.write_module_struct(path, [(m, list(parts.items())) for m, parts in self.module_struct.items()])
            log.info(f"> save module struct to {path}")
        log.warning("monitor: print_struct is done (module_struct.json); the monitor stops and training goes on")
        self._remove_all_hooks()

    def step_grads(self):
        """(names, gradients) before the optimizer step: the parameters' own, or with DeepSpeed
        ZeRO the pieces of the flat fp32 partitions' gradient, as 1.2.1 reads them."""
        partitioned = self.optimizer_state.partition_grads(self.params, self.names)
        return partitioned if partitioned is not None else (self.names, map(self.grad_of, self.params))

    def _collect_wgrads(self):
        names, grads = [], []
        for name, grad in zip(*self.step_grads()):
            if name in self.duplicate or grad is None:
                continue
            names.append(tag(name, "post_grad", self.rank))
            grads.append(grad)
        if names:
            self.add("grad_reduced", names, grads)

    def _collect_optimizer_step(self, optimizer):
        cfg = self.config
        if cfg.wg_distribution:
            self._collect_wgrads()
        names, m, v, steps = [], [], [], []
        if cfg.mv_distribution or cfg.mg_direction or self.ur_on:
            names, m, v, steps = self.optimizer_state.adam_state(optimizer, self.params, self.names)
        if cfg.mv_distribution and names:
            self.add("exp_avg", [tag(n, "exp_avg", self.rank) for n in names], m)
            self.add("exp_avg_sq", [tag(n, "efxp_avg_sq", self.rank) for n in names], v)
        if cfg.param_distribution:
            self.add("param", list(self.names), self.params)
        if cfg.mg_direction:
            add_mg_direction(self, names, m)
        if self.ur_on and names:
            self.heatmaps.add(self, optimizer, names, m, v, steps)

    def _step_final(self, optimizer):
        if self.monitoring and self.writer is not None and self._selected(self.step) and not self.disabled:
            self.has_collect_times += 1
            alerts = []
            for flushed in self.writer.flush_step(STEP_PREFIXES, self.step):
                self.output.write(flushed, self.config.ops)
                alerts.extend(flushed.alerts)
            if self.ur_on:
                self.heatmaps.draw(self.output, self.step)
            for alert in alerts:
                log.warning(alert.line)
            if self.anomaly_file is not None:
                self.anomaly_file.write(alerts)
            if self.has_collect_times >= self.config.collect_times:
                self._finish()
        self.step += 1
        self._dynamic_monitor()
        self._update_collecting()

    def _remove_all_hooks(self):
        self.xy_hooks.remove()
        self.wg_hooks.remove()
        self.cc_hooks.remove()
        for h in self.step_handles:
            h.remove()
        self.step_handles = []
        if self.writer is not None:
            self.writer.clear()
        self.monitoring = False
        self.collecting = False

    def _finish(self):
        if self.dynamic_enable:
            # 1.2.1 turns the switch off when collect_times are done, to be turned on again.
            try:
                with open(self.config_file_path, encoding="utf-8") as f:
                    doc = json.load(f)
                doc["switch"] = False
                with open(self.config_file_path, "w", encoding="utf-8") as f:
                    json.dump(doc, f, indent=2)
                self.config_timestamp = os.path.getmtime(self.config_file_path)
            except (OSError, ValueError) as exc:
                log.warning(f"monitor: finished, but the switch of {self.config_file_path} could not be set to "
                            f"false: {exc}")
        log.info("monitor: finished (collect_times reached)")
        self._remove_all_hooks()

    def _dynamic_monitor(self):
        if not self.dynamic_enable:
            return
        try:
            stamp = os.path.getmtime(self.config_file_path)
            if stamp == self.config_timestamp:
                return
            self.config_timestamp = stamp
            config = _core.load_monitor_config(str(self.config_file_path))
        except (ValueError, OSError) as exc:
            log.error(f"monitor: {exc}; the config is not updated")
            return
        if not config.switch:
            return
        self.config = config
        self._remove_all_hooks()
        self._set_config()
        log.warning(f"monitor: config updated at step {self.step - 1}, monitoring starts at step {self.step}")
        self._register_hooks(self.optimizer)


class _InstanceStepPatch:
    """The handle of a step wrapped on an optimizer instance."""

    def __init__(self, optimizer, inner):
        self.optimizer, self.inner = optimizer, inner

    def remove(self):
        if self.optimizer is not None:
            self.optimizer.step = self.inner
            self.optimizer = None
