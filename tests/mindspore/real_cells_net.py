"""MindSpore's own library cells (PyNative, CPU), trained two steps and dumped at the given level,
with our msprobe or the original 1.2.1 (MSPROBE_ORIGINAL_SHIM=1, see parity_net.py):
  lstm         an encoder with nn.Embedding and nn.LSTM (cell `enc.rnn`), a Dense head;
  transformer  nn.Transformer (encoder-decoder), a Dense head.

    python real_cells_net.py --model lstm|transformer --level L0|L1|mix [--no-probe] [--plain-seed]
Prints one "step N loss L" line per step.
"""
import argparse
import os
import sys

import numpy as np

if os.environ.get("MSPROBE_ORIGINAL_SHIM") == "1":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import orig_shim  # noqa: F401

import mindspore as ms
from mindspore import Tensor, nn, ops

ms.set_context(mode=ms.PYNATIVE_MODE)
ms.set_device("CPU")


class Encoder(nn.Cell):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(16, 8)
        self.rnn = nn.LSTM(8, 8, batch_first=True)

    def construct(self, ids):
        out, _ = self.rnn(self.emb(ids))
        return out


class LstmNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.enc = Encoder()
        self.head = nn.Dense(8, 4)

    def construct(self, ids, target):
        logits = self.head(self.enc(ids)[:, -1, :])
        return ops.mean(ops.square(logits - target))


class TransformerNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.model = nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1,
                                    dim_feedforward=16, dropout=0.0, batch_first=True)
        self.head = nn.Dense(8, 4)

    def construct(self, src, tgt, target):
        out = self.model(src, tgt)
        return ops.mean(ops.square(self.head(out[:, -1, :]) - target))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--model", choices=("lstm", "transformer"), required=True)
    p.add_argument("--level", choices=("L0", "L1", "mix"), default="mix")
    p.add_argument("--dump-path", default="./dump")
    p.add_argument("--steps", type=int, default=2)
    p.add_argument("--no-probe", action="store_true")
    p.add_argument("--plain-seed", action="store_true",
                   help="mindspore.set_seed instead of msprobe's seed_all (1.2.1's fails on nn.Transformer)")
    args = p.parse_args()
    if args.no_probe or args.plain_seed:
        ms.set_seed(1234)
    else:
        # as users do; 1.2.1's seed_all(rm_dropout=True) fails on MindSpore 2.10 for nn.Transformer
        from msprobe.mindspore import seed_all
        seed_all(seed=1234, mode=False, rm_dropout=True)
    rng = np.random.default_rng(1234)
    net = LstmNet() if args.model == "lstm" else TransformerNet()
    optimizer = nn.SGD(net.trainable_params(), learning_rate=0.1)
    grad_fn = ms.value_and_grad(net, None, optimizer.parameters)
    debugger = None
    if not args.no_probe:
        from msprobe.mindspore import PrecisionDebugger
        debugger = PrecisionDebugger(task="statistics", dump_path=args.dump_path, level=args.level)
    for step in range(args.steps):
        target = Tensor(rng.uniform(0, 1, (2, 4)).astype(np.float32))
        if args.model == "lstm":
            inputs = (Tensor(rng.integers(0, 16, (2, 5)).astype(np.int32)),)
        else:
            inputs = (Tensor(rng.uniform(-1, 1, (2, 5, 8)).astype(np.float32)),
                      Tensor(rng.uniform(-1, 1, (2, 3, 8)).astype(np.float32)))
        if debugger is not None:
            debugger.start(net)
        loss, grads = grad_fn(*inputs, target)
        if debugger is not None:
            debugger.stop()
        optimizer(grads)
        if debugger is not None:
            debugger.step()
        print(f"step {step} loss {float(loss.asnumpy()):.6f}", flush=True)


if __name__ == "__main__":
    main()
