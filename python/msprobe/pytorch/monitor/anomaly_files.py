"""anomaly_detected/rank{R}/anomaly.json (alert "dump": true), written by the C++ core."""
from msprobe import _core
from msprobe.core import log


class AnomalyFile:
    def __init__(self, dir_path, rank, pp_stage, group_mates):
        self.file = _core.AnomalyFile(dir_path, rank, pp_stage, list(group_mates))

    def write(self, alerts):
        self.file.write(alerts)
        log.info(f"anomaly.json is at {self.file.path}")
