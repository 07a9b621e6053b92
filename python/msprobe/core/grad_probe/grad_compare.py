"""GradComparator (1.2.1's grad_probe, docs 17): how far two runs' gradient directions agree, per
parameter and step. The C++ core (msprobe._core.grad_compare) reads the direction files and writes
similarities.csv and grad_divergence.json, which names the first step where the directions part
(beyond 1.2.1); this module draws 1.2.1's pictures with matplotlib and logs the result."""
import os

from msprobe import _core
from msprobe.core import log

NO_RANKS = "no matched ranks for comparison, please dump data in same configuration"


def _plot(similarities, output_dir):
    """similarities_picture/{name}_similarities.png for each parameter and the summary."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        log.warning("matplotlib is not installed: similarities_picture/ is not drawn "
                    "(pip install 'msprobe[grad]' or matplotlib)")
        return
    picture_dir = os.path.join(output_dir, "similarities_picture")
    os.makedirs(picture_dir, mode=0o750, exist_ok=True)
    steps = list(similarities.steps)
    for name, values in zip(similarities.names, similarities.values):
        fig = plt.figure()
        plt.plot(steps, list(values))
        plt.xlabel("steps")
        plt.ylabel("similarities")
        plt.title(f"{name}_similarities")
        path = os.path.join(picture_dir, f"{name}_similarities.png")
        fig.savefig(path)
        plt.close(fig)
        os.chmod(path, 0o640)


class GradComparator:
    @classmethod
    def compare_distributed(cls, path1: str, path2: str, output_dir: str):
        """Compares rank{N} of path1 with rank{N} of path2 into output_dir/rank{N}."""
        ranks = _core.grad_matched_dirs(path1, path2, "rank")
        log.info(f"the following ranks will be compared: {ranks}")
        if not ranks:
            raise RuntimeError(NO_RANKS)
        for rank in ranks:
            log.info(f"now comparing rank {rank}:")
            cls.compare(os.path.join(path1, f"rank{rank}"), os.path.join(path2, f"rank{rank}"),
                        os.path.join(output_dir, f"rank{rank}"))

    @classmethod
    def compare(cls, path1: str, path2: str, output_dir: str):
        """Compares two rank folders (dump_path/rank{N}) into output_dir."""
        result = _core.grad_compare(path1, path2, output_dir)
        log.info(f"{len(result.similarities.steps)} steps compared, see {result.csv_path}")
        _plot(result.similarities, output_dir)
        (log.warning if result.divergence.found else log.info)(result.line)
        return result
