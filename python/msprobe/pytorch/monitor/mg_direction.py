"""mg_direction (1.2.1's TrainerMon, docs 19): per parameter, how far its gradient points the way
of Adam's exp_avg, written with the step's "other" statistics under "{param}/rank{R}/mg_direction".
The sign matches of every parameter of a step are computed by the core in one call
(MonitorWriter.add_sign_matches)."""
from msprobe.core import log
from msprobe.pytorch.monitor.module_names import tag

PREFIX = "other"


def add_mg_direction(mon, moment_names, exp_avgs):
    """The gradients of mon's parameters (DeepSpeed ZeRO: the pieces of the flat fp32 partitions,
    as 1.2.1 takes them) against the exp_avgs (of moment_names) before the step. Step 0 gives
    1.0, as 1.2.1 does; so does a parameter with no exp_avg yet (a resumed run's first step, an
    optimizer without one; 1.2.1 fails there)."""
    exp_avg_of = {} if mon.step == 0 else dict(zip(moment_names, exp_avgs))
    tags, grads, moments = [], [], []
    for name, grad in zip(*mon.step_grads()):
        if grad is None:
            continue
        exp_avg = exp_avg_of.get(name)
        if exp_avg is not None and exp_avg.numel() != grad.numel():
            log.warning(f"monitor: mg_direction: {name}: the gradient has {grad.numel()} elements, its exp_avg "
                        f"{exp_avg.numel()}; left out")
            continue
        tags.append(tag(name, "mg_direction", mon.rank))
        grads.append(grad)
        moments.append(exp_avg)
    if tags:
        with mon.on_host(grads + moments) as host:
            mon.writer.add_sign_matches(PREFIX, tags, host[:len(grads)], host[len(grads):])
