"""Two ranks of real MindSpore on CPU (dynamic cluster: a scheduler and two worker processes): each
rank dumps into its own rank{ID} folder, communication calls are recorded, the `rank` filter
works, and the probe does not change the distributed training."""
import json
import os
import socket
import subprocess

from ms_helpers import HERE, MS_PYTHON, load_dump, ms_env

SCRIPT = os.path.join(HERE, "dist_train.py")


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_cluster(tmp_path, config, steps=2, workers=2):
    """Runs dist_train.py as a scheduler and `workers` workers; returns each worker's stdout."""
    env = ms_env(MS_WORKER_NUM=str(workers), MS_SCHED_HOST="127.0.0.1", MS_SCHED_PORT=str(_free_port()),
                 GLOG_v="3")
    tmp_path.mkdir(exist_ok=True)
    cfg = "none"
    if config is not None:
        cfg = tmp_path / "config.json"
        cfg.write_text(json.dumps(config))
    procs = []
    for role, node in [("MS_SCHED", None)] + [("MS_WORKER", i) for i in range(workers)]:
        penv = dict(env, MS_ROLE=role)
        if node is not None:
            penv["MS_NODE_ID"] = str(node)
        log = open(tmp_path / f"{role}{'' if node is None else node}.log", "w+")
        procs.append((subprocess.Popen([MS_PYTHON, SCRIPT, str(cfg), str(steps)], cwd=tmp_path,
                                       env=penv, stdout=log, stderr=subprocess.STDOUT), log))
    outputs = []
    try:
        for proc, log in procs:
            proc.wait(timeout=300)
    finally:
        for proc, log in procs:
            if proc.poll() is None:
                proc.kill()
    for proc, log in procs:
        log.seek(0)
        text = log.read()
        log.close()
        assert proc.returncode == 0, text[-3000:]
        outputs.append(text)
    return outputs[1:]


def _lines(output, word):
    return [line.split()[2:] for line in output.splitlines() if line.startswith(word + " ")]


def test_two_ranks_dump_into_their_own_folders(tmp_path):
    config = {"task": "statistics", "dump_path": str(tmp_path / "dump"), "level": "L1",
              "rank": [], "step": [], "statistics": {"scope": [], "list": [], "data_mode": ["all"],
                                                     "summary_mode": "statistics"}}
    outputs = run_cluster(tmp_path, config)
    # Data parallel with averaged gradients: both ranks end with the same weights.
    weights = [_lines(out, "weights")[0] for out in outputs]
    assert weights[0] == weights[1]
    for step in (0, 1):
        per_rank = [load_dump(tmp_path / "dump", step, rank)[0]["data"] for rank in (0, 1)]
        for rank, data in enumerate(per_rank):
            assert "Primitive.allreduce.AllReduce.0.forward" in data
            if step == 0:
                assert "Distributed.broadcast.0.forward" in data
                bcast = data["Distributed.broadcast.0.forward"]
                assert bcast["output"][0]["shape"] == [2, 4]
            else:
                assert not any(k.startswith("Distributed.") for k in data)
        # Each rank's gradients differ (its own data); the all-reduced sums are the same.
        ins = [d["Primitive.allreduce.AllReduce.0.forward"]["input_args"][0] for d in per_rank]
        outs = [d["Primitive.allreduce.AllReduce.0.forward"]["output"][0] for d in per_rank]
        assert ins[0]["Max"] != ins[1]["Max"]
        assert outs[0]["Max"] == outs[1]["Max"] and outs[0]["Norm"] == outs[1]["Norm"]
    # The broadcast made rank 1's initial weights rank 0's.
    b0, b1 = (load_dump(tmp_path / "dump", 0, r)[0]["data"]["Distributed.broadcast.0.forward"]
              for r in (0, 1))
    assert b0["output"][0]["Max"] == b1["output"][0]["Max"]
    assert b0["input_args"][0]["Max"] != b1["input_args"][0]["Max"]


def test_rank_filter_and_unchanged_training(tmp_path):
    config = {"task": "statistics", "dump_path": str(tmp_path / "dump"), "level": "L1",
              "rank": [1], "step": [0], "statistics": {"scope": [], "list": [],
                                                        "data_mode": ["all"],
                                                        "summary_mode": "statistics"}}
    outputs = run_cluster(tmp_path, config)
    assert sorted(os.listdir(tmp_path / "dump")) == ["step0"]
    assert sorted(os.listdir(tmp_path / "dump" / "step0")) == ["rank1"]
    # The same training without the probe: the same losses and weights.
    plain = run_cluster(tmp_path / "plain", None)
    assert [_lines(o, "weights") for o in outputs] == [_lines(o, "weights") for o in plain]
    assert [_lines(o, "loss") for o in outputs] == [_lines(o, "loss") for o in plain]
