"""Two gloo ranks of a small net dumped by our probe, for the first-divergence test of several
ranks: each rank computes linear -> tanh on its own input, all-reduces the activations, then
linear -> relu -> mean. With --fault scale, rank 1's tanh is 4% off (rank 0 computes exactly), so
rank 0's all_reduce sees equal inputs and a different output. (The reduced activations are
detached: only the second layer trains.)
Usage: python two_rank_pair.py DUMP_PATH [--fault none|scale]   (starts both ranks itself)"""
import argparse
import os
import socket
import subprocess
import sys


def worker(dump_path, fault):
    import torch
    import torch.distributed as dist
    import torch.nn as nn

    from msprobe.pytorch import PrecisionDebugger, seed_all

    rank = int(os.environ["RANK"])
    dist.init_process_group("gloo", rank=rank, world_size=2)
    seed_all(1234, mode=False)
    if fault == "scale" and rank == 1:
        original = torch.tanh
        torch.tanh = lambda x, *a, **k: original(x, *a, **k) * 1.04
    first, second = nn.Linear(16, 32), nn.Linear(32, 4)
    from dump_config import write_dump_config
    debugger = PrecisionDebugger(config_path=write_dump_config(dump_path, "statistics", "L1", f"config{rank}.json"))
    x = torch.randn(8, 16, generator=torch.Generator().manual_seed(10 + rank))
    debugger.start()
    h = torch.tanh(first(x)).detach()  # the collective works in place: not on what tanh saved
    dist.all_reduce(h)
    loss = torch.relu(second(h)).mean()
    loss.backward()
    debugger.stop()
    debugger.step()
    dist.destroy_process_group()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dump_path")
    ap.add_argument("--fault", default="none")
    ap.add_argument("--worker", action="store_true")
    a = ap.parse_args()
    if a.worker:
        worker(a.dump_path, a.fault)
        return
    os.makedirs(a.dump_path, exist_ok=True)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = dict(os.environ, MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), WORLD_SIZE="2")
    procs = [subprocess.Popen([sys.executable, __file__, a.dump_path, "--fault", a.fault, "--worker"],
                              env=dict(env, RANK=str(r))) for r in range(2)]
    codes = [p.wait(timeout=300) for p in procs]
    sys.exit(max(codes))


if __name__ == "__main__":
    main()
