"""A few training steps of a tiny transformers model (built from a config object: nothing is
downloaded), dumped with statistics at the given level. Runs unchanged with our msprobe and with
the original 1.2.1 (both provide `from msprobe.pytorch import PrecisionDebugger, seed_all`).

    python tiny_transformers.py --family gpt2|bert|t5|bart|vit --level L0|L1|mix
                                [--dump-path ./dump] [--steps 2] [--no-probe]

Families: a decoder-only model (gpt2, GPT2LMHeadModel), an encoder-only one (bert,
BertForSequenceClassification), two encoder-decoders (t5, T5ForConditionalGeneration; bart,
BartForConditionalGeneration: both get `labels` and shift them right into the decoder inputs,
which calls Tensor.__setitem__, an API that returns None) and a vision transformer (vit,
ViTForImageClassification on 8x8 images). One layer, hidden size 16, sequence 8, batch 2, dropout
0, seed_all(1234), SGD (foreach=False) inside start()/stop(), dump config `step: []`.

Prints one line per step, `loss STEP VALUE`, VALUE being repr() of the float (bit-exact).
`--no-probe` runs the same training without creating a debugger (seed_all is still called), so the
losses can be compared with a probed run.

tests/parity/make_transformers_fixtures.py runs it with the original 1.2.1 and writes the
fixtures in tests/fixtures/original_1.2.1/transformers/; tests/test_transformers_clients.py runs
it with ours and compares.
"""
import argparse
import json
import os
import tempfile

import torch
import torch._dynamo  # noqa: F401  before the debugger: 1.2.1 wraps torch.ops.aten on creation

from msprobe.pytorch import PrecisionDebugger, seed_all

FAMILIES = ("gpt2", "bert", "t5", "bart", "vit")
LEVELS = ("L0", "L1", "mix")
BATCH, SEQ, VOCAB, HIDDEN, FFN, HEADS = 2, 8, 32, 16, 32, 2


def build(family):
    """(model, inputs of each step as a function of the step index)."""
    import transformers as tf
    g = torch.Generator().manual_seed(20250207)

    def tokens(low=3):
        return torch.randint(low, VOCAB, (BATCH, SEQ), generator=g)

    if family == "gpt2":
        model = tf.GPT2LMHeadModel(tf.GPT2Config(
            vocab_size=VOCAB, n_positions=16, n_embd=HIDDEN, n_layer=1, n_head=HEADS,
            resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0, use_cache=False))
        make = lambda: (lambda ids: {"input_ids": ids, "labels": ids})(tokens())  # noqa: E731
    elif family == "bert":
        model = tf.BertForSequenceClassification(tf.BertConfig(
            vocab_size=VOCAB, hidden_size=HIDDEN, num_hidden_layers=1, num_attention_heads=HEADS,
            intermediate_size=FFN, max_position_embeddings=16, type_vocab_size=2,
            hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0, num_labels=3))
        make = lambda: {"input_ids": tokens(), "attention_mask": torch.ones(BATCH, SEQ, dtype=torch.long),  # noqa: E731
                        "labels": torch.randint(0, 3, (BATCH,), generator=g)}
    elif family == "t5":
        model = tf.T5ForConditionalGeneration(tf.T5Config(
            vocab_size=VOCAB, d_model=HIDDEN, d_kv=HIDDEN // HEADS, d_ff=FFN, num_layers=1,
            num_decoder_layers=1, num_heads=HEADS, dropout_rate=0.0, pad_token_id=0,
            eos_token_id=1, decoder_start_token_id=0, use_cache=False))
        make = lambda: {"input_ids": tokens(), "labels": tokens()}  # noqa: E731
    elif family == "bart":
        model = tf.BartForConditionalGeneration(tf.BartConfig(
            vocab_size=VOCAB, d_model=HIDDEN, encoder_layers=1, decoder_layers=1,
            encoder_attention_heads=HEADS, decoder_attention_heads=HEADS, encoder_ffn_dim=FFN,
            decoder_ffn_dim=FFN, max_position_embeddings=16, dropout=0.0, attention_dropout=0.0,
            activation_dropout=0.0, pad_token_id=1, bos_token_id=0, eos_token_id=2,
            decoder_start_token_id=2, forced_eos_token_id=None, use_cache=False))
        make = lambda: {"input_ids": tokens(), "labels": tokens()}  # noqa: E731
    elif family == "vit":
        model = tf.ViTForImageClassification(tf.ViTConfig(
            image_size=8, patch_size=4, num_channels=3, hidden_size=HIDDEN, num_hidden_layers=1,
            num_attention_heads=HEADS, intermediate_size=FFN, hidden_dropout_prob=0.0,
            attention_probs_dropout_prob=0.0, num_labels=3))
        make = lambda: {"pixel_values": torch.randn(BATCH, 3, 8, 8, generator=g),  # noqa: E731
                        "labels": torch.randint(0, 3, (BATCH,), generator=g)}
    else:
        raise SystemExit(f"unknown family {family}")
    return model, make


def make_debugger(level, dump_path):
    cfg = {"task": "statistics", "dump_path": dump_path, "rank": [], "step": [], "level": level,
           "statistics": {"scope": [], "list": [], "data_mode": ["all"],
                          "summary_mode": "statistics"}}
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(cfg, f)
    try:
        return PrecisionDebugger(config_path=f.name)
    finally:
        os.unlink(f.name)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--family", choices=FAMILIES, required=True)
    p.add_argument("--level", choices=LEVELS)
    p.add_argument("--dump-path", default="./dump")
    p.add_argument("--steps", type=int, default=2)
    p.add_argument("--no-probe", action="store_true", help="train without a debugger")
    args = p.parse_args()
    if not args.no_probe and not args.level:
        p.error("--level is required unless --no-probe is given")
    seed_all(1234)
    model, make_inputs = build(args.family)
    # after the model: 1.2.1 wraps the APIs when the debugger is created, and at L1/mix its wrapper
    # then fails inside nn.Embedding(padding_idx=...).__init__ (`weight[padding_idx].fill_(0)`
    # under no_grad: "A view was created in no_grad mode and its base ... modified inplace")
    debugger = None if args.no_probe else make_debugger(args.level, args.dump_path)
    model.train()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, foreach=False)
    batches = [make_inputs() for _ in range(args.steps)]
    for step, batch in enumerate(batches):
        if debugger:
            debugger.start(model)
        optimizer.zero_grad()
        loss = model(**batch).loss
        loss.backward()
        optimizer.step()
        if debugger:
            debugger.stop()
            debugger.step()
        print(f"loss {step} {loss.item()!r}", flush=True)


if __name__ == "__main__":
    main()
