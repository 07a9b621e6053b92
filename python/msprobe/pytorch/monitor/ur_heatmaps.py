"""ur_distribution (1.2.1's TrainerMon, docs 19): Adam's update m^/(sqrt(v^)+eps) and ratio
m^/sqrt(v^) of each parameter as heat maps in TensorBoard, "{param}/adam_update" and
"{param}/adam_ratio" ("{param}/rank{R}/..." when distributed, as 1.2.1 names them): at each
monitored step a histogram of 30 bins over [-1, 1] becomes the next column, and the whole map is
drawn as an image of that step.

The core (msprobe._core.AdamHeatmaps) computes the update, the ratio and their histograms, and
keeps the columns; Python draws the image with matplotlib."""
import importlib.util

import torch

from msprobe import _core
from msprobe.core import log

UPDATE, RATIO = "adam_update", "adam_ratio"


def ur_enabled(cfg):
    """Whether the config's ur_distribution can be drawn; one line says why not."""
    if not cfg.ur_distribution:
        return False
    # 1.2.1 draws with its TensorBoard writer, and fails with the csv one.
    if cfg.format != "tensorboard":
        log.warning(f"monitor: ur_distribution draws heat maps into TensorBoard and needs \"format\": "
                    f"\"tensorboard\" (not \"{cfg.format}\"); it is left off")
        return False
    if importlib.util.find_spec("matplotlib") is None:
        log.warning("monitor: ur_distribution draws its heat maps with matplotlib, which is not installed; "
                    "it is left off")
        return False
    return True


def _step_counts(steps):
    """The optimizer's step counts as one float64 tensor (torch keeps 0-d tensors, apex numbers)."""
    if all(torch.is_tensor(s) for s in steps):
        return torch.stack([s.detach().reshape(()).to(torch.float64) for s in steps])
    return torch.tensor([float(s) for s in steps], dtype=torch.float64)


def _adam_hyperparameters(optimizer):
    """(beta1, beta2, eps) of the optimizer's defaults (1.2.1 reads them there), or None."""
    for opt in (optimizer, getattr(optimizer, "optimizer", None)):
        defaults = getattr(opt, "defaults", None)
        if isinstance(defaults, dict) and "betas" in defaults and "eps" in defaults:
            beta1, beta2 = defaults["betas"]
            return float(beta1), float(beta2), float(defaults["eps"])
    return None


def heatmap_image(counts, step):
    """The RGBA image (H, W, 4 uint8) 1.2.1 draws of a heat map: matplotlib's default figure, the
    counts (bins down, steps across) in the "hot" colour map with a colour bar, the bins labelled
    by 30 points from -1 to 1."""
    import numpy as np
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure()
    FigureCanvasAgg(fig)   # no pyplot: no global figure state, no GUI backend in a training process
    ax = fig.subplots()
    drawn = ax.matshow(np.asarray(counts, dtype=np.float32), cmap="hot", aspect="auto")
    fig.colorbar(drawn)
    bins = _core.HEATMAP_BINS
    ax.set_yticks(range(bins), labels=[f"{v:.2f}" for v in torch.linspace(-1, 1, bins).tolist()])
    ax.set_xlabel("Step")
    ax.set_ylabel("Value Range")
    ax.set_title(f"Total Step: {step}")
    fig.canvas.draw()
    return np.array(fig.canvas.buffer_rgba())


class UrHeatmaps:
    def __init__(self):
        self.core = _core.AdamHeatmaps()   # kept over dynamic restarts, as 1.2.1 keeps its maps
        self.warned = False

    def add(self, mon, optimizer, names, exp_avgs, exp_avg_sqs, steps):
        """The histograms of this step (before the optimizer step, from the moments it left)."""
        hyper = _adam_hyperparameters(optimizer)
        if hyper is None:
            if not self.warned:
                log.warning("monitor: ur_distribution needs Adam's betas and eps in the optimizer's defaults; "
                            "none found, no heat maps")
                self.warned = True
            return
        kept = [i for i, s in enumerate(steps) if s is not None]
        if not kept:
            return
        rank = mon.rank if mon.distributed else None
        named = [names[i] if rank is None else f"{names[i]}/rank{rank}" for i in kept]
        m, v = [exp_avgs[i] for i in kept], [exp_avg_sqs[i] for i in kept]
        with mon.on_host(m + v + [_step_counts([steps[i] for i in kept])]) as host:
            self.core.add([f"{n}/{UPDATE}" for n in named], [f"{n}/{RATIO}" for n in named], host[:len(m)],
                          host[len(m):2 * len(m)], host[-1], *hyper)

    def draw(self, output, step):
        for heatmap in self.core.take():
            output.write_image(heatmap.tag, heatmap_image(heatmap.counts, step), step)
