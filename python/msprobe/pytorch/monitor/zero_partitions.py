"""DeepSpeed ZeRO's flat fp32 partitions (opt_ty DeepSpeedZeroOptimizer_Stage1_or_2 and
DeepSpeedZeroOptimizer_Stage3, the optimizer given to TrainerMon.set_wrapped_optimizer): which
piece of each monitored parameter this rank holds, and its Adam moments and gradient as views of
the partitions (1.2.1's get_param_index and _fetch_mv_grad_in_adam read the same attributes).

- Stage 1/2: a group's parameters (bit16_groups[g]; round_robin_bit16_groups[g] where DeepSpeed
  reordered them) lie end to end in one flat buffer, padded and cut into world_size equal
  partitions; this rank's is single_partition_of_fp32_groups[g]. A parameter's piece is where
  its range meets the partition (none: the parameter is another rank's).
- Stage 3: every rank holds a piece of every parameter, fp16_partitioned_groups[g][i] (of
  fp16_groups[g][i]), end to end in fp32_partitioned_groups_flat[g].

The moments are the Adam state of each flat partition. The gradient is the partition's .grad, or,
before DeepSpeed sets it, DeepSpeed's flatten of averaged_gradients[g] (aligned to partition_size
on the last rank of stage 1/2). Each tensor is cut with one split per group: the pieces handed to
the core are views, nothing is copied here."""
import torch.distributed as dist

from msprobe.core import log


def _rank_and_world():
    if dist.is_available() and dist.is_initialized():
        return dist.get_rank(), dist.get_world_size()
    return 0, 1


class ZeroPartitions:
    def __init__(self, stage3):
        self.stage3 = stage3
        self.wrapped = self.params = None   # what the layout was made for
        self.sizes = []    # per group: the split of its flat partition (pieces and gaps)
        self.picks = []    # (group, piece, parameter index), in the order of the parameters
        self.warned = set()

    def _layout(self, wrapped, params):
        if wrapped is self.wrapped and params is self.params:
            return
        index = {p: i for i, p in enumerate(params)}
        flats = self._flats(wrapped)
        if self.stage3:
            # (parameter, length of its piece here); the piece starts where the previous ends.
            owners = getattr(wrapped, "fp16_groups", wrapped.fp16_partitioned_groups)
            groups = [[(o if o in index else piece, piece.numel()) for o, piece in zip(og, pg)]
                      for og, pg in zip(owners, wrapped.fp16_partitioned_groups)]
            starts = [0] * len(flats)
        else:
            rank, _ = _rank_and_world()
            groups = getattr(wrapped, "round_robin_bit16_groups", None) or wrapped.bit16_groups
            groups = [[(p, p.numel()) for p in group] for group in groups]
            starts = [rank * flat.numel() for flat in flats]   # where this rank's partition starts
        self.sizes, self.picks = [], []
        for g, (flat, group, lo) in enumerate(zip(flats, groups, starts)):
            size, sizes, at, offset = flat.numel(), [], 0, 0
            for param, n in group:
                a, b = max(offset, lo) - lo, min(offset + n, lo + size) - lo
                offset += n
                if a >= b or param not in index:
                    continue
                if a > at:
                    sizes.append(a - at)   # a gap: a parameter not monitored
                self.picks.append((g, len(sizes), index[param]))
                sizes.append(b - a)
                at = b
            if at < size:
                sizes.append(size - at)    # the rest: padding, or parameters of the next ranks
            self.sizes.append(sizes)
        self.picks.sort(key=lambda pick: pick[2])
        self.wrapped, self.params = wrapped, params

    def _views(self, tensors, names, what):
        """[(name, view)] of the pieces in the groups' flat tensors (a group's None: none of it)."""
        split = []
        for g, t in enumerate(tensors):
            if t is not None and t.numel() != sum(self.sizes[g]):
                self._warn(what, f"{what} of group {g} has {t.numel()} elements, its partition {sum(self.sizes[g])}")
                t = None
            split.append(t.reshape(-1).split(self.sizes[g]) if t is not None and self.sizes[g] else None)
        return [(names[i], split[g][k]) for g, k, i in self.picks if split[g] is not None]

    def _warn(self, key, text):
        if key not in self.warned:
            self.warned.add(key)
            log.warning(f"monitor: DeepSpeed ZeRO: {text}; left out")

    def _flats(self, wrapped):
        return wrapped.fp32_partitioned_groups_flat if self.stage3 else wrapped.single_partition_of_fp32_groups

    def moments(self, wrapped, params, names):
        """(names, exp_avg views, exp_avg_sq views) of the parameters with a piece here."""
        self._layout(wrapped, params)
        state = wrapped.state
        by_place = list(state.values())
        m, v = [], []
        for g, flat in enumerate(self._flats(wrapped)):
            # The state of the flat partition; 1.2.1 takes the g-th entry.
            s = state.get(flat) if flat in state else (by_place[g] if g < len(by_place) else None)
            m.append(s.get("exp_avg") if s else None)
            v.append(s.get("exp_avg_sq") if s else None)
        exp_avg = self._views(m, names, "exp_avg")
        exp_avg_sq = dict(self._views(v, names, "exp_avg_sq"))
        pairs = [(n, t, exp_avg_sq[n]) for n, t in exp_avg if n in exp_avg_sq]
        return [n for n, _, _ in pairs], [t for _, t, _ in pairs], [t for _, _, t in pairs]

    def grads(self, wrapped, params, names):
        """(names, gradient views) of the parameters with a piece here."""
        self._layout(wrapped, params)
        grads = [self._flat_grad(wrapped, g, flat) for g, flat in enumerate(self._flats(wrapped))]
        pairs = self._views(grads, names, "the gradient")
        return [n for n, _ in pairs], [t for _, t in pairs]

    def _flat_grad(self, wrapped, g, flat):
        if flat.grad is not None:
            return flat.grad
        averaged = getattr(wrapped, "averaged_gradients", None)
        pieces = averaged.get(g) if isinstance(averaged, dict) else (
            averaged[g] if averaged is not None and g < len(averaged) else None)
        if not pieces or any(p is None for p in pieces):
            self._warn(f"grad{g}", f"no gradient of group {g} yet (neither .grad of its fp32 partition nor "
                                   f"averaged_gradients)")
            return None
        rank, world = _rank_and_world()
        if not self.stage3 and rank == world - 1:
            return wrapped.flatten_dense_tensors_aligned(pieces, int(wrapped.partition_size[g])).to(flat.dtype)
        return wrapped.flatten(pieces).to(flat.dtype)
