"""A second, tiny script (L1) for encodings the parity model does not exercise.

    python extra_encodings.py --config configs/L1_statistics.json

Covers: a dotted torch API (torch.linalg.norm), direct torch.ops.aten calls (packet and
overload), torch.sum with a positional dim and dtype=, 0-dim int64/int32 results, an empty
tensor, inf/NaN statistics, Tensor.__setitem__ (returns None) and a bool-mask __getitem__, plus
calls that are not wrapped (new_zeros, torch.tensor, Tensor.to, Tensor.float), a 0-dim bool,
bfloat16 and 0-dim float16 results. Run it with configs/L1_md5.json to see the md5 values.
Used for facts in tests/fixtures/original_1.2.1/README.md; its dump is not checked in.
"""
import argparse

import torch

from msprobe.pytorch import PrecisionDebugger


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", required=True)
    args = parser.parse_args()
    debugger = PrecisionDebugger(config_path=args.config)
    x = torch.arange(6, dtype=torch.float32).reshape(2, 3)
    debugger.start()
    torch.linalg.norm(x)
    torch.ops.aten.add(x, x)
    torch.ops.aten.add.Tensor(x, x)
    x.new_zeros(2)
    torch.sum(x, 0, dtype=torch.float64)
    g = torch.tensor(3)
    g + 1
    x.to(torch.int32).max()
    torch.empty(0, 3).sum(0)
    torch.tensor([1.0, float("inf"), -2.0, float("nan")]) * 1
    x[0, 1] = 5.0
    x[torch.tensor([True, False])]
    x.float()
    (x > 2).all()                      # 0-dim bool
    x.to(torch.bfloat16) * 1           # bf16 statistics (not upcast), md5 over float32 bytes
    x.to(torch.float16).sum()          # 0-dim float16
    debugger.stop()
    debugger.step()


if __name__ == "__main__":
    main()
