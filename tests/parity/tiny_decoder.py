"""One training step of a tiny transformers decoder (GPT-2 built from a config object: nothing is
downloaded), dumped at the given level. Runs with our msprobe and with the original 1.2.1.

    python tiny_decoder.py --level L0|mix [--dump-path ./dump]

GPT2Model (`transformer`) returns a ModelOutput, a dict-like object: 1.2.1 records its backward
entry and the Tensor.view_as its output hook makes; tests/test_transformers_names.py checks that
our names match the original's (tests/fixtures/original_1.2.1/tiny_decoder_*.txt).
"""
import argparse
import json
import os
import tempfile

import torch
import torch._dynamo  # noqa: F401  before the debugger: 1.2.1 wraps torch.ops.aten on creation
from transformers import GPT2Config, GPT2LMHeadModel

from msprobe.pytorch import PrecisionDebugger, seed_all


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--level", choices=("L0", "mix"), required=True)
    p.add_argument("--dump-path", default="./dump")
    args = p.parse_args()
    seed_all(1234)
    config = GPT2Config(vocab_size=32, n_positions=16, n_embd=16, n_layer=1, n_head=2,
                        resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0, use_cache=False)
    model = GPT2LMHeadModel(config)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, foreach=False)
    ids = torch.arange(8).reshape(1, 8) % 32
    cfg = {"task": "statistics", "dump_path": args.dump_path, "rank": [], "step": [],
           "level": args.level, "statistics": {"scope": [], "list": [], "data_mode": ["all"],
                                               "summary_mode": "statistics"}}
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(cfg, f)
    try:
        debugger = PrecisionDebugger(config_path=f.name)
    finally:
        os.unlink(f.name)
    debugger.start(model)
    optimizer.zero_grad()
    out = model(input_ids=ids, labels=ids)
    out.loss.backward()
    debugger.stop()
    optimizer.step()
    debugger.step()
    print(f"loss {out.loss.item():.6f}", flush=True)


if __name__ == "__main__":
    main()
