"""The parent side of a kill storm (tests/scripts/kill_storm.py for PyTorch,
tests/mindspore/kill_storm_ms.py): each victim is a fork that dumps every step into
OUT_DIR/kill{k}/dump, in turn with the configurations below, until it is killed with SIGKILL 0 to
0.3 s after its first iteration. The cut files are left for the test; one line per victim is
printed: "k level task steps_started"."""
import json
import os
import random
import signal
import time

CONFIGS = [
    {"task": "statistics", "level": "mix", "statistics": {"summary_mode": "statistics"}},
    {"task": "tensor", "level": "L1", "tensor": {}},
    {"task": "statistics", "level": "L0", "statistics": {"summary_mode": "md5"}},
]


def write_config(config):
    """config.json of the victim's configuration, dumping into ./dump."""
    with open("config.json", "w") as f:
        json.dump(dict(config, dump_path="./dump"), f)


def kill_storm(argv, victim, may_die_early=False):
    """argv: OUT_DIR KILLS [SEED]. victim(config, ready_fd) trains and writes one byte to
    ready_fd after its first iteration. With `may_die_early`, a victim that ends before that
    (no dump folder) counts 0 steps instead of failing the storm."""
    out, kills = argv[1], int(argv[2])
    rng = random.Random(int(argv[3]) if len(argv) > 3 else 0)
    for k in range(kills):
        where = os.path.join(out, f"kill{k}")
        os.makedirs(where)
        config = CONFIGS[k % len(CONFIGS)]
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            os.chdir(where)
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 2)
            victim(config, w)
        os.close(w)
        ready = os.read(r, 1)
        os.close(r)
        if ready or not may_die_early:
            time.sleep(rng.uniform(0.0, 0.3))
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        dump = os.path.join(where, "dump")
        steps = 0 if may_die_early and not os.path.isdir(dump) else \
            len([n for n in os.listdir(dump) if n.startswith("step")])
        print(k, config["level"], config["task"], steps, flush=True)
