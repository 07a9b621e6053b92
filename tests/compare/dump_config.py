"""The config.json the first-divergence training scripts dump with (fault_net*.py, real_pair.py,
two_rank_pair.py): every rank and step, all data, the given compare mode."""
import json
import os


def write_dump_config(dump_path, mode, level, name="config.json"):
    """mode: "statistics", "md5" or "tensor". Writes dump_path/name and returns its path."""
    task = "tensor" if mode == "tensor" else "statistics"
    task_cfg = {"scope": [], "list": [], "data_mode": ["all"]}
    if task == "statistics":
        task_cfg["summary_mode"] = mode
    os.makedirs(dump_path, exist_ok=True)
    path = os.path.join(dump_path, name)
    with open(path, "w") as f:
        json.dump({"task": task, "dump_path": dump_path, "rank": [], "step": [], "level": level, task: task_cfg}, f)
    return path
