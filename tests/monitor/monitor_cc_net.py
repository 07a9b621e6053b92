"""One rank of a two-rank gloo training run whose data parallelism is written with
torch.distributed collectives, under TrainerMon with cc_distribution (the monitor's
communication statistics), for the monitor tests and 1.2.1's fixtures.

    RANK=r WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=p \
        python monitor_cc_net.py --config CONFIG [--steps N] [--no-monitor] [--as-121]

Each step: the gradients are summed with all_reduce (one of them asynchronously, waited on) and
halved, a scale is broadcast from rank 0, the losses are gathered with all_gather. Prints one
line per step with the loss and the gathered losses (repr: training unchanged is checked bit for
bit), and at the end whether torch.distributed's functions are the original ones again.
--as-121 passes what 1.2.1 needs on plain PyTorch (see monitor_net.py)."""
import argparse
import json
import os
import subprocess
import sys

import torch
import torch.distributed as dist

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from monitor_net import Net, batch, start_monitor  # noqa: E402

# What the monitor wraps, to tell whether it put them back.
ORIGINALS = (dist.all_reduce, dist.distributed_c10d.all_reduce, dist.broadcast, dist.all_gather, dist.Work.wait)


def run_two_ranks(python, work, config, port, *args, env=None):
    """Runs both ranks with `python` in `work` (config.json written there, MONITOR_OUTPUT_DIR=out);
    returns [(returncode, stdout, stderr)] of rank 0 and 1."""
    os.makedirs(work, exist_ok=True)
    with open(os.path.join(work, "config.json"), "w") as f:
        json.dump(config, f, indent=1)
    base = dict(os.environ, MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), WORLD_SIZE="2",
                MONITOR_OUTPUT_DIR="out", **(env or {}))
    procs = [subprocess.Popen([python, os.path.abspath(__file__), "--config", "config.json", *args], cwd=work,
                              env=dict(base, RANK=str(r)), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for r in range(2)]
    outs = [p.communicate(timeout=240) for p in procs]
    return [(p.returncode, out, err) for p, (out, err) in zip(procs, outs)]


def average_gradients(model):
    params = list(model.parameters())
    work = dist.all_reduce(params[0].grad, async_op=True)
    for p in params[1:]:
        dist.all_reduce(p.grad)
    work.wait()
    for p in params:
        p.grad /= 2


def swap(rank):
    """Rank r sends [r + 1, 2] to the other rank and receives its tensor, in one batch."""
    send, recv = torch.tensor([rank + 1.0, 2.0]), torch.zeros(2)
    ops = [dist.P2POp(dist.isend, send, 1 - rank), dist.P2POp(dist.irecv, recv, 1 - rank)]
    for work in dist.batch_isend_irecv(ops):
        work.wait()
    assert recv.tolist() == [2.0 - rank, 2.0]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config")
    ap.add_argument("--steps", type=int, default=3)
    ap.add_argument("--no-monitor", action="store_true")
    ap.add_argument("--as-121", action="store_true")
    ap.add_argument("--p2p", action="store_true", help="also swap a small tensor with batch_isend_irecv")
    args = ap.parse_args()
    rank = int(os.environ["RANK"])
    dist.init_process_group("gloo", rank=rank, world_size=2)
    torch.manual_seed(0)
    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.0078125)
    if not args.no_monitor:
        start_monitor(args.config, model, opt, args.as_121)
    coef = torch.tensor([[1.0, -2.0]])
    for step in range(args.steps):
        opt.zero_grad()
        scale = torch.tensor([1.0 + step / 2]) if rank == 0 else torch.zeros(1)
        dist.broadcast(scale, src=0)
        loss = (model(batch(step) * (rank + 1) * scale) * coef).sum() ** 2
        loss.backward()
        average_gradients(model)
        gathered = [torch.zeros(1) for _ in range(2)]
        dist.all_gather(gathered, loss.detach().reshape(1))
        if args.p2p:
            swap(rank)
        opt.step()
        print(f"step {step} loss {loss.item()!r} all {[g.item() for g in gathered]!r}", flush=True)
    current = (dist.all_reduce, dist.distributed_c10d.all_reduce, dist.broadcast, dist.all_gather, dist.Work.wait)
    print(f"collectives restored {all(a is b for a, b in zip(current, ORIGINALS))}", flush=True)
    dist.barrier()
    dist.destroy_process_group()
    # torch's gloo can abort in its thread destructors at interpreter exit (see
    # test_monitor_distributed.py); every file is written by now.
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
