"""TrainerMon in a transformers Trainer (a tiny GPT-2 built from its config, no download):
monitor_gnorm_with_ad(model) with no optimizer watches the optimizer the Trainer makes (torch's
global step hooks, as in 1.2.1); the Trainer's losses are the same with the monitor on."""
import json
import os
import sys

import pytest
from conftest import run_python

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from monitor_checks import read_csv, the_rank_dir  # noqa: E402

pytest.importorskip("transformers")

SCRIPT = r"""
import json, sys, torch, transformers
from transformers import GPT2Config, GPT2LMHeadModel, Trainer, TrainingArguments
torch.manual_seed(0)
model = GPT2LMHeadModel(GPT2Config(vocab_size=64, n_positions=16, n_embd=16, n_layer=2, n_head=2))
data = [{"input_ids": torch.arange(i, i + 8) % 64, "labels": torch.arange(i, i + 8) % 64} for i in range(8)]
args = TrainingArguments(output_dir="trainer", max_steps=3, per_device_train_batch_size=2, learning_rate=1e-3,
                         report_to=[], use_cpu=True, save_strategy="no", logging_steps=1, seed=0,
                         dataloader_num_workers=0, disable_tqdm=True)
if sys.argv[1] == "on":
    from msprobe.pytorch import TrainerMon
    mon = TrainerMon("config.json")
    mon.monitor_gnorm_with_ad(model)
trainer = Trainer(model=model, args=args, train_dataset=data)
trainer.train()
print("LOSSES", json.dumps([h["loss"] for h in trainer.state.log_history if "loss" in h]))
"""


def test_trainer_losses_unchanged_and_files_written(tmp_path):
    with open(tmp_path / "config.json", "w") as f:
        json.dump({"targets": {"transformer.h.0.mlp": {}}, "xy_distribution": True, "wg_distribution": True,
                   "mv_distribution": True, "ops": ["norm", "max"], "format": "csv"}, f)
    env = {"MONITOR_OUTPUT_DIR": "out", "TOKENIZERS_PARALLELISM": "false"}
    on = run_python(SCRIPT, "on", cwd=str(tmp_path), env=env)
    off = run_python(SCRIPT, "off", cwd=str(tmp_path), env=env)
    got = [line for line in on.stdout.splitlines() if line.startswith("LOSSES")]
    assert got and got == [line for line in off.stdout.splitlines() if line.startswith("LOSSES")]
    rank_dir = the_rank_dir(tmp_path / "out")
    files = sorted(os.listdir(rank_dir))
    for step in range(3):
        assert f"grad_reduced_{step}-{step}.csv" in files and f"actv_{step}-{step}.csv" in files
    assert "exp_avg_2-2.csv" in files
    actv = read_csv(os.path.join(rank_dir, "actv_1-1.csv"))
    assert [r[1] for r in actv[1:]] == ["transformer.h.0.mlp_0"]
    wg = read_csv(os.path.join(rank_dir, "grad_reduced_1-1.csv"))
    assert "transformer.h.0.mlp.c_fc.weight" in [r[1] for r in wg[1:]]
