"""Where the Adam moments of a parameter live, by optimizer type (1.2.1's `opt_ty`).

Plain torch.optim optimizers (opt_ty None, the documented value) keep them in
optimizer.state[param]; Megatron's mixed-precision optimizers keep them for an fp32 copy of each
fp16 parameter, found through the wrapped optimizer (TrainerMon.set_wrapped_optimizer); DeepSpeed
ZeRO stage 0 is plain. 1.2.1 refused mv_distribution with opt_ty None ("unknown optimizer"): here
None reads the plain state, so plain PyTorch works with the defaults."""
from msprobe.core import log
from msprobe.pytorch.monitor.zero_partitions import ZeroPartitions

MEGATRON_MIX_PRECISION = ("Megatron_Float16OptimizerWithFloat16Params",
                          "Megatron_ChainedFloat16OptimizerWithFloat16Params")
MEGATRON_DISTRIBUTED = ("Megatron_DistributedOptimizer", "Megatron_ChainedDistributedOptimizer")
PLAIN = (None, "", "unknown", "Megatron_FP32Optimizer", "DeepSpeedZeroOptimizer_Stage0")
DEEPSPEED_STAGE3 = "DeepSpeedZeroOptimizer_Stage3"
DEEPSPEED_PARTITIONED = ("DeepSpeedZeroOptimizer_Stage1_or_2", DEEPSPEED_STAGE3)
OPT_TYPES = PLAIN[2:] + MEGATRON_MIX_PRECISION + MEGATRON_DISTRIBUTED + DEEPSPEED_PARTITIONED


def check_opt_ty(opt_ty):
    if opt_ty not in PLAIN and opt_ty not in OPT_TYPES:
        raise ValueError(f"opt_ty {opt_ty!r} is not one of: None, " + ", ".join(OPT_TYPES))


class OptimizerState:
    wrapped_optimizer = None   # set_wrapped_optimizer: the Megatron/DeepSpeed optimizer object

    def __init__(self, opt_ty):
        check_opt_ty(opt_ty)
        self.opt_ty = opt_ty
        self.master = {}       # fp16 parameter -> its fp32 master copy (Megatron)
        self.warned = False
        self.zero = ZeroPartitions(opt_ty == DEEPSPEED_STAGE3) if opt_ty in DEEPSPEED_PARTITIONED else None

    def _map_master_params(self):
        wrapped = OptimizerState.wrapped_optimizer
        if wrapped is None or self.master:
            return
        chained = getattr(wrapped, "chained_optimizers", None) or [wrapped]
        for opt in chained:
            if self.opt_ty in MEGATRON_DISTRIBUTED:
                if not (hasattr(opt, "model_float16_groups") and hasattr(opt, "shard_fp32_from_float16_groups")):
                    raise ValueError("a Megatron distributed optimizer needs model_float16_groups and "
                                     "shard_fp32_from_float16_groups; check the Megatron-LM version")
                pairs = zip(opt.model_float16_groups, opt.shard_fp32_from_float16_groups)
            else:
                pairs = zip(getattr(opt, "float16_groups", []), getattr(opt, "fp32_from_float16_groups", []))
            for fp16_group, fp32_group in pairs:
                for fp16, fp32 in zip(fp16_group, fp32_group):
                    self.master[fp16] = fp32

    def _state_of(self, optimizer):
        wrapped = OptimizerState.wrapped_optimizer
        chained = getattr(wrapped, "chained_optimizers", None) if wrapped is not None else None
        if chained:
            state = {}
            for opt in chained:
                state.update(getattr(opt, "optimizer", opt).state)
            return state
        return optimizer.state

    def partition_grads(self, params, names):
        """DeepSpeed ZeRO 1/2/3: (names, gradient pieces of the flat fp32 partitions), as 1.2.1
        reads them; None for the other optimizers (the parameters' own gradients)."""
        if self.zero is None:
            return None
        return self.zero.grads(self._zero_optimizer(), params, names)

    def _zero_optimizer(self):
        wrapped = OptimizerState.wrapped_optimizer
        if wrapped is None:
            raise ValueError(f"opt_ty {self.opt_ty} needs TrainerMon.set_wrapped_optimizer(optimizer)")
        return wrapped

    def moments(self, optimizer, params, names):
        """(names, exp_avg tensors, exp_avg_sq tensors) of the parameters that have both."""
        if self.zero is not None:
            return self.zero.moments(self._zero_optimizer(), params, names)
        if self.opt_ty in MEGATRON_MIX_PRECISION + MEGATRON_DISTRIBUTED:
            self._map_master_params()
        state = self._state_of(optimizer)
        out_names, m, v = [], [], []
        for param, name in zip(params, names):
            s = state.get(self.master.get(param, param))
            if not s:
                continue
            exp_avg, exp_avg_sq = s.get("exp_avg"), s.get("exp_avg_sq")
            if exp_avg is None or exp_avg_sq is None:
                if not self.warned:
                    log.warning(f"monitor: the optimizer keeps no exp_avg / exp_avg_sq (of {name} and maybe "
                                f"others): mv_distribution has nothing to show")
                    self.warned = True
                continue
            out_names.append(name)
            m.append(exp_avg)
            v.append(exp_avg_sq)
        return out_names, m, v
