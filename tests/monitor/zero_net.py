"""monitor_net's model trained by stand-ins of DeepSpeed's ZeRO optimizers on gloo ranks, for the
monitor tests and 1.2.1's fixtures (DeepSpeed does not run here):

    RANK=r WORLD_SIZE=n MASTER_ADDR=.. MASTER_PORT=.. python zero_net.py --stage 2|3 --config C
                                                                         [--steps N] [--as-121]

The stand-ins keep exactly the attributes 1.2.1's monitor reads (optimizer_collect.py), laid out as
DeepSpeed lays them out; every rank trains on the same batches, so the gradients need no reduction.
Stage 1/2: a group's parameters end to end in one flat buffer padded to a multiple of
2 * world_size (DeepSpeed's alignment), rank r keeping partition r in fp32
(single_partition_of_fp32_groups) with the Adam state of that partition; groups_padding is the
padding on the last rank. Stage 3: every parameter padded to a multiple of world_size and split,
rank r keeping piece r of each (fp16_partitioned_groups), end to end in
fp32_partitioned_groups_flat. Between backward and step, reduce_gradients() fills
averaged_gradients with this rank's pieces of the gradients (what DeepSpeed's engine does in
backward); step() sets the fp32 partition's grad, runs Adam on it, gathers the partitions into the
model and clears the grad again, as DeepSpeed does, so the monitor reads averaged_gradients.
Prints one line per step with the loss; the monitor's files go to $MONITOR_OUTPUT_DIR."""
import argparse
import os
import subprocess
import sys

import torch
import torch.distributed as dist
from torch._utils import _flatten_dense_tensors

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from monitor_net import Net, batch  # noqa: E402


def flatten_dense_tensors_aligned(tensors, alignment):
    """DeepSpeed's: the tensors end to end, zero-padded to a multiple of `alignment`."""
    flat = _flatten_dense_tensors(tensors)
    pad = (-flat.numel()) % alignment
    return torch.cat([flat, flat.new_zeros(pad)]) if pad else flat


class _ZeroStandIn:
    flatten = staticmethod(_flatten_dense_tensors)
    flatten_dense_tensors_aligned = staticmethod(flatten_dense_tensors_aligned)

    def __init__(self, groups, flats):
        self.model_groups = groups
        self.averaged_gradients = {}
        self.optimizer = torch.optim.Adam([{"params": [f]} for f in flats], lr=0.0625)

    @property
    def state(self):
        return self.optimizer.state

    def zero_grad(self):
        for group in self.model_groups:
            for p in group:
                p.grad = None

    def _grad_pieces(self, g):
        raise NotImplementedError

    def _gather_into_model(self, g):
        raise NotImplementedError

    def reduce_gradients(self):
        for g in range(len(self.model_groups)):
            self.averaged_gradients[g] = self._grad_pieces(g)

    def step(self):
        flats = self.optimizer.param_groups
        for g, group in enumerate(flats):
            (flat,) = group["params"]
            if self.stage3 or self.rank != self.world - 1:
                flat.grad = self.flatten(self.averaged_gradients[g]).to(flat.dtype)
            else:
                flat.grad = self.flatten_dense_tensors_aligned(self.averaged_gradients[g],
                                                               int(self.partition_size[g])).to(flat.dtype)
        self.optimizer.step()
        for g, group in enumerate(flats):
            self._gather_into_model(g)
            group["params"][0].grad = None


class ZeroStage1or2(_ZeroStandIn):
    stage3 = False

    def __init__(self, groups):
        self.rank, self.world = dist.get_rank(), dist.get_world_size()
        self.bit16_groups = groups
        self.bit16_groups_flat = [flatten_dense_tensors_aligned([p.detach() for p in g], 2 * self.world)
                                  for g in groups]
        self.partition_size = [f.numel() // self.world for f in self.bit16_groups_flat]
        self.groups_padding = [f.numel() - sum(p.numel() for p in g) if self.rank == self.world - 1 else 0
                               for f, g in zip(self.bit16_groups_flat, groups)]
        self.single_partition_of_fp32_groups = [
            f[self.rank * n:(self.rank + 1) * n].clone().float().requires_grad_(True)
            for f, n in zip(self.bit16_groups_flat, self.partition_size)]
        super().__init__(groups, self.single_partition_of_fp32_groups)

    def _grad_pieces(self, g):
        lo, hi, offset, pieces = self.rank * self.partition_size[g], (self.rank + 1) * self.partition_size[g], 0, []
        for p in self.bit16_groups[g]:
            a, b = max(lo, offset), min(hi, offset + p.numel())
            if a < b:
                pieces.append(p.grad.reshape(-1)[a - offset:b - offset])
            offset += p.numel()
        return pieces

    def _gather_into_model(self, g):
        parts = [torch.empty_like(self.single_partition_of_fp32_groups[g]) for _ in range(self.world)]
        dist.all_gather(parts, self.single_partition_of_fp32_groups[g].detach())
        flat, offset = torch.cat(parts), 0
        with torch.no_grad():
            for p in self.bit16_groups[g]:
                p.copy_(flat[offset:offset + p.numel()].view_as(p))
                offset += p.numel()


class ZeroStage3(_ZeroStandIn):
    stage3 = True

    def __init__(self, groups):
        self.rank, self.world = dist.get_rank(), dist.get_world_size()
        self.fp16_groups = groups
        self.fp16_partitioned_groups = [[self._piece(p.detach()) for p in g] for g in groups]
        self.fp32_partitioned_groups_flat = [_flatten_dense_tensors(parts).float().requires_grad_(True)
                                             for parts in self.fp16_partitioned_groups]
        super().__init__(groups, self.fp32_partitioned_groups_flat)

    def _piece(self, t):
        flat = flatten_dense_tensors_aligned([t], self.world)
        n = flat.numel() // self.world
        return flat[self.rank * n:(self.rank + 1) * n].clone()

    def _grad_pieces(self, g):
        return [self._piece(p.grad) for p in self.fp16_groups[g]]

    def _gather_into_model(self, g):
        offset = 0
        with torch.no_grad():
            for p, part in zip(self.fp16_groups[g], self.fp16_partitioned_groups[g]):
                mine = self.fp32_partitioned_groups_flat[g][offset:offset + part.numel()].detach()
                offset += part.numel()
                parts = [torch.empty_like(mine) for _ in range(self.world)]
                dist.all_gather(parts, mine)
                p.copy_(torch.cat(parts)[:p.numel()].view_as(p))


def run_ranks(python, work, args, port, world=2, env=None):
    """Runs this script on `world` gloo ranks in `work` (MONITOR_OUTPUT_DIR=out); their stdouts."""
    env = dict(os.environ, MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), WORLD_SIZE=str(world),
               MONITOR_OUTPUT_DIR="out", **(env or {}))
    procs = [subprocess.Popen([python, os.path.abspath(__file__), *args], cwd=work, env=dict(env, RANK=str(r)),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for r in range(world)]
    outs = [p.communicate(timeout=240) for p in procs]
    for p, (_, err) in zip(procs, outs):
        if p.returncode != 0:
            raise RuntimeError(f"zero_net.py {' '.join(args)} failed: {err}")
    return [out for out, _ in outs]


OPT_TY = {"2": "DeepSpeedZeroOptimizer_Stage1_or_2", "3": "DeepSpeedZeroOptimizer_Stage3"}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--stage", choices=sorted(OPT_TY), required=True)
    ap.add_argument("--config")
    ap.add_argument("--steps", type=int, default=3)
    ap.add_argument("--groups", type=int, default=1, choices=[1, 2], help="2: the head in a group of its own")
    ap.add_argument("--no-monitor", action="store_true")
    ap.add_argument("--as-121", action="store_true")
    args = ap.parse_args()
    dist.init_process_group("gloo")
    torch.manual_seed(0)
    model = Net()
    params = list(model.parameters())
    groups = [params] if args.groups == 1 else [params[:4], params[4:]]
    opt = (ZeroStage1or2 if args.stage == "2" else ZeroStage3)(groups)
    if not args.no_monitor:
        from msprobe.pytorch import TrainerMon
        # 1.2.1 reads param.main_grad of the partitions' slices with params_have_main_grad=True.
        mon = TrainerMon(args.config, params_have_main_grad=not args.as_121, opt_ty=OPT_TY[args.stage])
        TrainerMon.set_wrapped_optimizer(opt)
        mon.monitor_gnorm_with_ad(model, optimizer=opt)
    coef = torch.tensor([[1.0, -2.0]])
    for step in range(args.steps):
        opt.zero_grad()
        loss = (model(batch(step)) * coef).sum() ** 2
        loss.backward()
        opt.reduce_gradients()
        opt.step()
        print(f"step {step} loss {loss.item()!r}", flush=True)
    dist.barrier()
    dist.destroy_process_group()
    sys.stdout.flush()
    os._exit(0)   # torch's gloo may abort in its thread destructors at exit (see test_monitor_distributed)


if __name__ == "__main__":
    main()
