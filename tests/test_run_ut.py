"""run_ut: command line, output files, skip reasons, input generation, bad input, NPU references.

Real processes and real files throughout; the parity with the original 1.2.1 is in
test_run_ut_parity.py, kill -9 / resume in test_run_ut_resume.py, multi_run_ut in
test_run_ut_multi.py."""
import csv
import glob
import importlib.util
import json
import math
import os
import shutil
import subprocess
import sys

import pytest
import torch

TESTS_DIR = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(TESTS_DIR, "fixtures", "run_ut_1.2.1")
REAL_DUMP = os.path.join(FIXTURES, "dump")
RESULT_HEADER = ["API name", "Forward Test Success", "Backward Test Success", "Message"]


def _load_synthetic():
    spec = importlib.util.spec_from_file_location("run_ut_synthetic", os.path.join(FIXTURES, "synthetic.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


syn = _load_synthetic()


def run_cli(*args, cwd=None, command="run_ut", timeout=600, env=None):
    cmd = [sys.executable, "-m", "msprobe.cli", "-f", "pytorch", command, *map(str, args)]
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          env=dict(os.environ, **(env or {})))


def outputs(out_dir):
    result = glob.glob(os.path.join(str(out_dir), "accuracy_checking_result_*.csv"))
    details = glob.glob(os.path.join(str(out_dir), "accuracy_checking_details_*.csv"))
    assert len(result) == 1 and len(details) == 1, (result, details)
    return result[0], details[0]


def read_csv(path):
    with open(path, encoding="utf-8-sig", newline="") as f:
        return list(csv.reader(f))


def run_ok(*args, **kw):
    r = run_cli(*args, **kw)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "Traceback" not in r.stderr, r.stderr[-3000:]
    return r


def results_by_name(out_dir):
    result, details = outputs(out_dir)
    res = read_csv(result)
    assert res[0] == RESULT_HEADER
    return {row[0]: row for row in res[1:]}, read_csv(details)


@pytest.fixture
def real_dump(tmp_path):
    """A private copy of the checked-in real-data dump."""
    d = tmp_path / "dump"
    shutil.copytree(REAL_DUMP, d)
    return d / "dump.json"


# ---- files and formats --------------------------------------------------------------------------
def test_real_dump_outputs(real_dump, tmp_path):
    out = tmp_path / "out"
    run_ok("-api_info", real_dump, "-o", out)
    result, details = outputs(out)
    raw = open(result, "rb").read()
    assert raw.startswith(b"\xef\xbb\xbfAPI name,Forward Test Success,Backward Test Success,Message\r\n")
    assert oct(os.stat(result).st_mode & 0o777) == "0o640"
    assert oct(os.stat(details).st_mode & 0o777) == "0o640"
    res, det = results_by_name(out)
    dump = json.load(open(real_dump))["data"]
    forward = [k[:-len(".forward")] for k in dump if k.endswith(".forward")]
    assert list(res) == forward                       # one row per API, in dump order
    assert len(det[0]) == 23 and det[0][0] == "API Name" and det[0][-2:] == ["Status", "Message"]
    # 3 fields, or 4 when a direction is SKIP
    assert res["Functional.linear.0"] == ["Functional.linear.0", "pass", "pass"]
    assert res["Torch.argmax.0"] == ["Torch.argmax.0", "pass", " "]
    assert res["Torch.add.0"] == ["Torch.add.0", "pass", "SKIP",
                                  "function with out=... arguments don't support automatic differentiation, "
                                  "skip backward."]
    assert res["Torch.chunk.0"][2:] == ["SKIP", "Multiple backward is not supported."]
    rows = {r[0]: r for r in det[1:]}
    conv = rows["Functional.conv2d.0.forward.output.0"]
    assert conv[1:4] == ["torch.float32", "torch.float32", "(2, 4, 8, 8)"]   # conv2d is not upcast
    assert conv[7] != " "                                                  # 双千
    lin16 = rows["Functional.linear.1.forward.output.0"]
    assert lin16[1:3] == ["torch.float32", "torch.float16"]                 # fp16 -> fp32 bench
    assert rows["Torch.matmul.2.forward.output.0"][1:3] == ["torch.float64", "torch.float64"]
    assert "Functional.dropout.0.forward.output.0" not in rows             # dropout: no rows
    assert res["Functional.dropout.0"][1] == "pass"


def test_reruns_are_identical_for_statistics_dumps(tmp_path):
    dump = syn.write_dump(str(tmp_path / "d" / "dump.json"), syn.mixed_entries(24))
    for name in ("a", "b"):
        run_ok("-api_info", dump, "-o", tmp_path / name)
    da = read_csv(outputs(tmp_path / "a")[1])
    db = read_csv(outputs(tmp_path / "b")[1])
    assert da == db
    res, _ = results_by_name(tmp_path / "a")
    assert len(res) == 24 and all(r[1] != "SKIP" for r in res.values()), res


def test_original_statistics_dumps(tmp_path):
    """The original's own dumps (statistics) replay without a single SKIP."""
    dump = os.path.join(TESTS_DIR, "fixtures", "original_1.2.1", "L1_statistics", "step0", "rank", "dump.json")
    run_ok("-api_info", dump, "-o", tmp_path)
    res, det = results_by_name(tmp_path)
    assert len(res) == 32
    assert all(r[1] in ("pass", "Warning", "error") for r in res.values()), res


# ---- skip reasons -------------------------------------------------------------------------------
def test_skip_reasons(tmp_path):
    t = syn.tensor
    entries = {
        "Distributed.all_reduce.0": syn.api([t([4])]),
        "Torch.add": syn.api([t([4]), t([4])]),                          # 2 segments: invalid name
        "Torch.conv_tbc.0": syn.api([t([4])]),                           # black listed via -config
        "Functional.relu.0": syn.api([t([4, 4])]),
        "Torch.not_an_api.0": syn.api([t([4])]),                          # unknown API
        "VF.lstm.0": syn.api([t([4])]),                                  # family not replayed
        "NPU.npu_no_such_op.0": syn.api([t([4])]),
        "Torch.matmul.0": syn.api([t([2, 3]), t([4, 5])]),               # shape error inside torch
        "Torch.repeat_interleave.0": syn.api([t([4]), syn.scalar(2)], grad=t([8], requires_grad=False)),
        "Torch.masked_select.0": syn.api([t([4]), t([4], "torch.bool", lo=False, hi=True)],
                                         grad=t([2], requires_grad=False)),
        "Torch.max.0": syn.api([t([3, 4]), syn.scalar(1)], grad=t([3], requires_grad=False)),
        "Tensor.add.0": syn.api([t([4]), {}]),                           # unrecorded argument type
        "Torch.erf.0": syn.api([t([4], "torch.complex64")]),
    }
    dump = syn.write_dump(str(tmp_path / "d" / "dump.json"), entries)
    cfg = tmp_path / "config.json"
    cfg.write_text(json.dumps({"task": "run_ut", "run_ut": {"black_list": ["conv_tbc"]}}))
    run_ok("-api_info", dump, "-o", tmp_path / "o", "-config", cfg)
    res, det = results_by_name(tmp_path / "o")
    assert res["Distributed.all_reduce.0"] == ["Distributed.all_reduce.0", "SKIP", "SKIP",
                                               "API Distributed.all_reduce.0 not support for run ut. SKIP."]
    assert res["Torch.add"][1:] == ["SKIP", "SKIP", "API Torch.add not support for run ut. SKIP."]
    assert res["Torch.conv_tbc.0"][1:] == ["SKIP", "SKIP", "API conv_tbc in black list or not in white list. SKIP."]
    assert res["Functional.relu.0"][1:3] == ["pass", " "]
    assert res["Torch.not_an_api.0"][1] == "SKIP" and "not_an_api" in res["Torch.not_an_api.0"][3]
    assert res["VF.lstm.0"][1:] == ["SKIP", "SKIP", "API VF.lstm.0 not support for run ut. SKIP."]
    assert res["NPU.npu_no_such_op.0"][3] == "There is not bench function npu_no_such_op"
    assert res["Torch.matmul.0"][1] == "SKIP" and "cannot be multiplied" in res["Torch.matmul.0"][3]
    assert res["Torch.repeat_interleave.0"][2:] == ["SKIP", "This API does not have backward input data, "
                                                            "skip backward."]
    assert res["Torch.masked_select.0"][2:] == ["SKIP", "This API does not support backward ut, skip backward."]
    assert res["Torch.max.0"][2:] == ["SKIP", "Multiple backward is not supported."]
    assert res["Tensor.add.0"][1] == "SKIP" and "input_args[1] was not recorded" in res["Tensor.add.0"][3]
    assert res["Torch.erf.0"][1] == "SKIP" and "complex64" in res["Torch.erf.0"][3]
    # every skipped API has exactly one forward row carrying the message
    rows = {r[0]: r for r in det[1:]}
    skip_row = rows["Distributed.all_reduce.0.forward.output.0"]
    assert skip_row[1:21] == [" "] * 20 and skip_row[21:] == ["SKIP", res["Distributed.all_reduce.0"][3]]


def test_white_list(tmp_path):
    t = syn.tensor
    dump = syn.write_dump(str(tmp_path / "d" / "dump.json"),
                          {"Functional.relu.0": syn.api([t([4])]), "Torch.exp.0": syn.api([t([4])])})
    cfg = tmp_path / "config.json"
    cfg.write_text(json.dumps({"task": "statistics", "run_ut": {"white_list": ["relu"], "black_list": []}}))
    run_ok("-api_info", dump, "-o", tmp_path / "o", "-config", cfg)
    res, _ = results_by_name(tmp_path / "o")
    assert res["Functional.relu.0"][1] == "pass"
    assert res["Torch.exp.0"][3] == "API exp in black list or not in white list. SKIP."


def test_filter_api(tmp_path):
    t = syn.tensor
    entries = {"Torch.exp.0": syn.api([t([4], lo=0, hi=1, Mean=0.0)]),
               "Torch.exp.1": syn.api([t([4], lo=-5, hi=5, Mean=0.0)]),
               "Torch.exp.2": syn.api([t([8])])}
    dump = syn.write_dump(str(tmp_path / "d" / "dump.json"), entries)
    run_ok("-api_info", dump, "-o", tmp_path / "o", "-f")
    res, _ = results_by_name(tmp_path / "o")
    assert list(res) == ["Torch.exp.0", "Torch.exp.2"]


# ---- input generation ---------------------------------------------------------------------------
def builder(api_name="exp"):
    from msprobe.pytorch.run_ut.data_generate import ArgBuilder
    return ArgBuilder(api_name)


def test_random_tensor_rules():
    b = builder()
    torch.manual_seed(1234)
    x = b.tensor(syn.tensor([2, 3], lo=-1, hi=1), False)
    expect = torch.tensor([[-1.0000, -0.1962, -0.4803], [-0.2667, -0.8834, 1.0000]])
    assert torch.allclose(x, expect, atol=1e-4)                  # the reference golden (seed 1234)
    torch.manual_seed(1234)
    h = b.tensor(syn.tensor([5], "torch.float16", lo=-2.0, hi=math.inf, Max_except_inf_nan=2.0), False)
    assert h.dtype == torch.float16 and h[0] == -2 and h[-1] == math.inf and (h[1:4].abs() <= 2).all()
    # all inf / NaN tensors, NaN present, empty shapes, bool, int
    allinf = b.tensor(syn.tensor([3, 2], lo=math.inf, hi=math.inf), False)
    assert torch.isinf(allinf).all()
    nan = b.tensor(syn.tensor([6], lo=-1.0, hi=math.nan, Max_except_inf_nan=1.0, Min_except_inf_nan=-1.0), False)
    assert torch.isnan(nan[1]) and nan[0] == -1 and nan[-1] == 1
    assert b.tensor(syn.tensor([0, 3], lo=None, hi=None), False).numel() == 0
    bl = b.tensor(syn.tensor([50], "torch.bool", lo=False, hi=True), False)
    assert bl.dtype == torch.bool and bl.any() and not bl.all()
    ints = b.tensor(syn.tensor([100], "torch.int64", lo=3, hi=7), False)
    assert ints.min() == 3 and ints.max() == 7
    with pytest.raises(ValueError, match="info type must be int or float"):
        b.tensor(syn.tensor([2], lo=None, hi=1.0), False)


def test_hf32_rounding_for_conv():
    t = torch.tensor([1.0001, 0.1, 3.14159265])
    from msprobe.pytorch.run_ut.data_generate import _hf32
    assert _hf32(t).tolist() == [1.0, 0.100006103515625, 3.1416015625]
    conv = builder("conv2d")
    torch.manual_seed(0)
    x = conv.tensor(syn.tensor([64]), False)
    assert ((x.view(torch.int32) & 0xFFF) == 0).all()


def test_convert_and_special_masks():
    from msprobe.pytorch.run_ut.data_generate import preprocess_record
    ce = builder("cross_entropy")
    tgt = ce.tensor(syn.tensor([8], "torch.int32", lo=0, hi=4), False)
    assert tgt.dtype == torch.int64
    rec = {"input_args": [syn.tensor([4, 5]), syn.tensor([4], "torch.int64", lo=-100, hi=4)]}
    assert preprocess_record("cross_entropy", rec)["input_args"][1]["Min"] == 0
    fa = builder("npu_fusion_attention")
    kw = fa.kwargs({"atten_mask": syn.tensor([4, 4], "torch.bool", lo=False, hi=True), "sparse_mode": syn.scalar(3)})
    assert kw["atten_mask"].shape == (2048, 2048) and kw["atten_mask"].dtype == torch.bool


def test_upcast_rules():
    from msprobe.pytorch.run_ut import replay as ru
    a16, a32 = torch.ones(2, dtype=torch.float16), torch.ones(2)
    args, _, ac, auto = ru.bench_params([a16], {}, False, "add")
    assert args[0].dtype == torch.float32 and ac == torch.float16 and not auto
    args, _, ac, auto = ru.bench_params([a32], {}, False, "add")
    assert args[0].dtype == torch.float64 and ac == torch.float32
    args, kw, ac, auto = ru.bench_params([a16], {"other": a32}, False, "add")
    assert args[0].dtype == torch.float32 and kw["other"].dtype == torch.float32 and auto and ac == torch.float16
    args, _, _, _ = ru.bench_params([a32], {}, False, "conv2d")
    assert args[0].dtype == torch.float32
    args, _, _, _ = ru.bench_params([a16, a32], {}, False, "type_as")
    assert args[0].dtype == torch.float16
    args, _, _, _ = ru.bench_params([torch.ones(2, dtype=torch.float64), torch.ones(2, dtype=torch.int64)],
                                    {}, False, "add")
    assert args[0].dtype == torch.float64 and args[1].dtype == torch.int64


def test_seed_is_per_api():
    from msprobe.pytorch.run_ut.seeding import api_seed
    assert api_seed("Torch.add.0") == api_seed("Torch.add.0") != api_seed("Torch.add.1")


# ---- backward, error data -----------------------------------------------------------------------
def test_save_error_data(tmp_path):
    t = syn.tensor
    entries = {"Torch.sigmoid.0": syn.api([t([16])], grad=t([16], requires_grad=False)),
               # forward output dtype recorded as float16: the device runs under autocast
               "Torch.mm.0": syn.api([t([8, 8], hi=100.0, lo=-100.0), t([8, 8], hi=100.0, lo=-100.0)],
                                     out=[t([8, 8], "torch.float16")])}
    dump = syn.write_dump(str(tmp_path / "d" / "dump.json"), entries)
    cfg = tmp_path / "config.json"
    err_root = tmp_path / "errs"
    err_root.mkdir()
    cfg.write_text(json.dumps({"task": "run_ut", "run_ut": {"error_data_path": str(err_root)}}))
    run_ok("-api_info", dump, "-o", tmp_path / "o", "-save_error_data", "-config", cfg)
    res, _ = results_by_name(tmp_path / "o")
    assert res["Torch.sigmoid.0"][1:3] == ["pass", "pass"]
    assert res["Torch.mm.0"][1] in ("error", "Warning")
    folders = glob.glob(str(err_root / "ut_error_data*"))
    assert len(folders) == 1
    files = sorted(os.listdir(folders[0]))
    assert files == ["Torch.mm.0.forward.input.0.pt", "Torch.mm.0.forward.input.1.pt",
                     "Torch.mm.0.forward.output.bench.0.pt", "Torch.mm.0.forward.output.device.0.pt"]
    dev = torch.load(os.path.join(folders[0], "Torch.mm.0.forward.output.device.0.pt"), weights_only=True)
    bench = torch.load(os.path.join(folders[0], "Torch.mm.0.forward.output.bench.0.pt"), weights_only=True)
    assert dev.dtype == torch.float16 and bench.dtype == torch.float64 and dev.shape == (8, 8)


# ---- NPU fused operators ------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["torch.float16", "torch.bfloat16", "torch.float32"])
def test_npu_references(tmp_path, dtype):
    t = lambda shape, **kw: syn.tensor(shape, dtype, **kw)  # noqa: E731
    g = lambda shape: syn.tensor(shape, dtype, requires_grad=False)  # noqa: E731
    B, S, N, D = 2, 8, 2, 16
    entries = {
        "NPU.npu_rms_norm.0": syn.api([t([4, 32]), t([32])], {"epsilon": syn.scalar(1e-6)}),
        "NPU.npu_swiglu.0": syn.api([t([4, 32])], {"dim": syn.scalar(-1)}, grad=g([4, 16])),
        "NPU.npu_rotary_mul.0": syn.api([t([1, 4, 2, 16]), t([1, 4, 1, 16]), t([1, 4, 1, 16])],
                                        grad=g([1, 4, 2, 16])),
        "NPU.npu_fast_gelu.0": syn.api([t([64], lo=-4, hi=4)], grad=g([64])),
        "NPU.fast_gelu.0": syn.api([t([64], lo=-4, hi=4)]),
        "NPU.npu_linear.0": syn.api([t([4, 16]), t([8, 16]), t([8])], grad=g([4, 8])),
        "NPU.npu_layer_norm_eval.0": syn.api([t([4, 16]), [syn.scalar(16)]],
                                             {"weight": t([16]), "bias": t([16]), "eps": syn.scalar(1e-5)}),
        "NPU.npu_confusion_transpose.0": syn.api([t([2, 3, 4]), [syn.scalar(0), syn.scalar(2), syn.scalar(1)],
                                                  [syn.scalar(2), syn.scalar(12)], syn.scalar(True)],
                                                 grad=g([2, 12])),
        "NPU.npu_scaled_masked_softmax.0": syn.api(
            [t([2, 2, 8, 8], lo=-3, hi=3), syn.tensor([2, 2, 8, 8], "torch.bool", lo=False, hi=True)],
            {"scale": syn.scalar(0.5), "fixed_triu_mask": syn.scalar(False)}),
        "NPU.npu_fusion_attention.0": syn.api(
            [t([B, S, N * D]), t([B, S, N * D]), t([B, S, N * D]), syn.scalar(N), syn.scalar("BSH")],
            {"scale": syn.scalar(0.25), "sparse_mode": syn.scalar(0)}, grad=g([B, S, N * D])),
        "NPU.npu_fusion_attention.1": syn.api(
            [t([B, N, S, D]), t([B, 1, S, D]), t([B, 1, S, D]), syn.scalar(N), syn.scalar("BNSD")],
            {"scale": syn.scalar(0.25), "sparse_mode": syn.scalar(2),
             "atten_mask": syn.tensor([S, S], "torch.bool", lo=False, hi=True)}),
        "NPU.npu_apply_adam_w.0": syn.api(
            [syn.scalar(0.9), syn.scalar(0.99), syn.scalar(1e-3), syn.scalar(0.01), syn.scalar(0.9),
             syn.scalar(0.999), syn.scalar(1e-8), t([16]), None, syn.scalar(False), syn.scalar(False)],
            {"out": [t([16]), t([16]), t([16], lo=0.0, hi=1.0)]}),
    }
    dump = syn.write_dump(str(tmp_path / "d" / "dump.json"), entries)
    run_ok("-api_info", dump, "-o", tmp_path / "o")
    res, det = results_by_name(tmp_path / "o")
    for name, row in res.items():
        assert row[1] in ("pass", "Warning"), (name, row)
    rows = {r[0]: r for r in det[1:]}
    fa = rows["NPU.npu_fusion_attention.0.forward.output.0"]
    assert fa[1:3] == ["torch.float64", dtype]                  # float64 benchmark, dumped-dtype device
    assert "NPU.npu_fusion_attention.0.forward.output.1" not in rows    # only the attention output
    assert res["NPU.npu_fusion_attention.0"][2] in ("pass", "Warning")  # bf16 gradients may warn
    rms = [rows[f"NPU.npu_rms_norm.0.forward.output.{i}"] for i in (0, 1)]
    assert rms[0][2] == dtype and rms[1][2] == "torch.float32"   # rstd is float32
    assert res["NPU.npu_apply_adam_w.0"][2] == "SKIP"           # out= kwarg: no backward


def test_fusion_attention_matches_sdpa():
    from msprobe.pytorch.run_ut.bench_functions.fusion_attention import attention
    torch.manual_seed(0)
    q, k, v = (torch.randn(2, 3, 5, 8, dtype=torch.float64) for _ in range(3))
    out, _, _ = attention(q, k, v, 3, "BNSD", scale=8 ** -0.5, sparse_mode=2,
                          atten_mask=torch.triu(torch.ones(2048, 2048), 1).bool())
    ref = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
    assert torch.allclose(out, ref, atol=1e-10)
    bsh, _, _ = attention(q.permute(0, 2, 1, 3).reshape(2, 5, 24), k.permute(0, 2, 1, 3).reshape(2, 5, 24),
                          v.permute(0, 2, 1, 3).reshape(2, 5, 24), 3, "BSH", scale=8 ** -0.5)
    ref = torch.nn.functional.scaled_dot_product_attention(q, k, v).permute(0, 2, 1, 3).reshape(2, 5, 24)
    assert torch.allclose(bsh, ref, atol=1e-10)


# ---- bad input ----------------------------------------------------------------------------------
def _assert_clean_failure(r, *needles):
    assert r.returncode != 0
    assert "Traceback" not in r.stderr, r.stderr
    err = [line for line in r.stderr.splitlines() if "ERROR" in line]
    assert len(err) == 1, r.stderr
    for n in needles:
        assert n in err[0], err[0]


def test_malformed_dump_json_names_the_position(tmp_path):
    bad = tmp_path / "dump.json"
    bad.write_text('{"data": {\n "Torch.add.0.forward": {"input_args": [1, 2,]}\n}}')
    _assert_clean_failure(run_cli("-api_info", bad, "-o", tmp_path / "o"), str(bad), "line 2 column")
    bad.write_text('{"task": "tensor"}')
    _assert_clean_failure(run_cli("-api_info", bad, "-o", tmp_path / "o"), "no \"data\" object")
    bad.write_text("")
    _assert_clean_failure(run_cli("-api_info", bad, "-o", tmp_path / "o"), str(bad))


@pytest.mark.parametrize("case", ["missing", "suffix", "link", "none"])
def test_bad_api_info_path(tmp_path, case):
    good = syn.write_dump(str(tmp_path / "dump.json"), {})
    path = {"missing": tmp_path / "nope.json", "suffix": tmp_path / "dump.txt", "none": ""}.get(case)
    if case == "suffix":
        path.write_text("{}")
    if case == "link":
        path = tmp_path / "link.json"
        os.symlink(good, path)
    args = ["-o", tmp_path / "o"] + (["-api_info", path] if path != "" else [])
    _assert_clean_failure(run_cli(*args))


def test_missing_tensor_file_is_a_skip_row(real_dump, tmp_path):
    os.remove(real_dump.parent / "dump_tensor_data" / "Functional.relu.0.forward.input.0.pt")
    run_ok("-api_info", real_dump, "-o", tmp_path / "o")
    res, _ = results_by_name(tmp_path / "o")
    assert res["Functional.relu.0"][1:3] == ["SKIP", "SKIP"]
    assert "tensor file not found" in res["Functional.relu.0"][3]
    assert "Functional.relu.0.forward.input.0.pt" in res["Functional.relu.0"][3]
    assert res["Functional.linear.0"][1] == "pass"


def test_corrupt_tensor_file_is_a_skip_row(real_dump, tmp_path):
    (real_dump.parent / "dump_tensor_data" / "Functional.relu.0.forward.input.0.pt").write_bytes(b"not a zip")
    run_ok("-api_info", real_dump, "-o", tmp_path / "o")
    res, _ = results_by_name(tmp_path / "o")
    assert res["Functional.relu.0"][1] == "SKIP" and "cannot load" in res["Functional.relu.0"][3]


def test_torn_dump_json_runs_its_complete_entries(real_dump, tmp_path):
    """A dump.json cut by a kill: the complete entries are checked and the cut is reported once."""
    text = real_dump.read_bytes()
    names = list(json.loads(text)["data"])
    ends = [i + 4 for i in range(len(text)) if text.startswith(b"\n  }", i)]  # entry ends (indent=1)
    cut = (ends[5] + ends[6]) // 2
    real_dump.write_bytes(text[:cut])
    r = run_ok("-api_info", real_dump, "-o", tmp_path / "o")
    log = r.stdout + r.stderr
    assert log.count(f"cut at byte {cut}; kept 6 entries, dropped the incomplete entry '{names[6]}'") == 1, log
    res, _ = results_by_name(tmp_path / "o")
    assert list(res) == [n[:-len(".forward")] for n in names[:6] if n.endswith(".forward")]


def test_tensor_path_outside_the_dump_is_refused(tmp_path):
    t = syn.tensor([4], data_name="../../secret.pt")
    dump = syn.write_dump(str(tmp_path / "d" / "dump.json"), {"Torch.exp.0": syn.api([t])},
                          real_data_dir="/x")
    run_ok("-api_info", dump, "-o", tmp_path / "o")
    res, _ = results_by_name(tmp_path / "o")
    assert res["Torch.exp.0"][1] == "SKIP" and "'../../secret.pt' refused" in res["Torch.exp.0"][3]


@pytest.mark.parametrize("case,needle", [
    ("bad_name", "accuracy_checking_result_"),
    ("no_details", "details csv"),
    ("broken_header", "not a run_ut result file"),
    ("missing", "result csv not found"),
])
def test_bad_resume_csv(tmp_path, case, needle):
    dump = syn.write_dump(str(tmp_path / "d" / "dump.json"), {"Torch.exp.0": syn.api([syn.tensor([4])])})
    name = "accuracy_checking_result_20250101000000.csv"
    result = tmp_path / (name if case != "bad_name" else "results.csv")
    if case != "missing":
        result.write_text("a,b\n1,2\n" if case == "broken_header" else
                          "\ufeffAPI name,Forward Test Success,Backward Test Success,Message\r\n")
    if case in ("broken_header",):
        (tmp_path / name.replace("result", "details")).write_text("x\n")
    _assert_clean_failure(run_cli("-api_info", dump, "-csv_path", result), needle)


@pytest.mark.parametrize("cfg,needle", [
    ('{"task": "run_ut", "run_ut": {"white_list": ["not_an_api_name"]}}', "not_an_api_name"),
    ('{"task": "run_ut", "run_ut": {"error_data_path": "/does/not/exist"}}', "error_data_path"),
    ('{"task": "run_ut", "run_ut": {"black_list": "relu"}}', "black_list"),
    ('{"task": "run_ut", "run_ut": [1]}', "run_ut"),
    ('{"task": "run_ut", ', "line 1"),
])
def test_bad_config(tmp_path, cfg, needle):
    dump = syn.write_dump(str(tmp_path / "d" / "dump.json"), {})
    p = tmp_path / "config.json"
    p.write_text(cfg)
    _assert_clean_failure(run_cli("-api_info", dump, "-config", p, "-o", tmp_path / "o"), needle)


def test_bad_flags(tmp_path):
    dump = syn.write_dump(str(tmp_path / "d" / "dump.json"), {})
    _assert_clean_failure(run_cli("-api_info", dump, "-d", "0", "0"), "unique")
    _assert_clean_failure(run_cli("-api_info", dump, "-d", "-1"), "greater than or equal to 0")
    r = run_cli("-api_info", dump, "-n", "3")                     # -n belongs to multi_run_ut
    assert r.returncode != 0 and "unrecognized arguments: -n 3" in r.stderr and "Traceback" not in r.stderr
    _assert_clean_failure(run_cli("-api_info", dump, "-n", "0", command="multi_run_ut"), "-n")
    r = run_cli("-api_info", dump, "-o", tmp_path / "o", env={"CUDA_VISIBLE_DEVICES": ""})
    assert r.returncode == 0


# The package's own entry and the 1.2.1 path users' scripts run (a thin module since the move).
@pytest.mark.parametrize("module", ["msprobe.pytorch.run_ut", "msprobe.pytorch.api_accuracy_checker.run_ut.run_ut"])
def test_python_module_entry(real_dump, tmp_path, module):
    r = subprocess.run([sys.executable, "-m", module,
                        "-api_info", str(real_dump), "-o", str(tmp_path / "o")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    res, _ = results_by_name(tmp_path / "o")
    assert res["Functional.linear.0"][1:] == ["pass", "pass"]


def test_npy_tensor_files(tmp_path):
    import numpy
    data = tmp_path / "d" / "dump_tensor_data"
    data.mkdir(parents=True)
    numpy.save(data / "Torch.exp.0.forward.input.0.npy", numpy.linspace(-1, 1, 12, dtype=numpy.float32))
    numpy.save(data / "Torch.exp.1.forward.input.0.npy", numpy.array([object()], dtype=object), allow_pickle=True)
    t = lambda name: syn.tensor([12], data_name=name)  # noqa: E731
    dump = syn.write_dump(str(tmp_path / "d" / "dump.json"),
                          {"Torch.exp.0": syn.api([t("Torch.exp.0.forward.input.0.npy")]),
                           "Torch.exp.1": syn.api([t("Torch.exp.1.forward.input.0.npy")]),
                           "Torch.exp.2": syn.api([t("Torch.exp.2.forward.input.0.txt")])},
                          real_data_dir=str(data))
    (data / "Torch.exp.2.forward.input.0.txt").write_text("1")
    run_ok("-api_info", dump, "-o", tmp_path / "o")
    res, det = results_by_name(tmp_path / "o")
    assert res["Torch.exp.0"][1] == "pass"
    assert res["Torch.exp.1"][1] == "SKIP" and "allow_pickle" in res["Torch.exp.1"][3]   # never unpickled
    assert res["Torch.exp.2"][1] == "SKIP" and "is not a pt or numpy file" in res["Torch.exp.2"][3]
    assert {r[0]: r for r in det[1:]}["Torch.exp.0.forward.output.0"][3] == "(12,)"


def test_details_feed_api_precision_compare(real_dump, tmp_path):
    """Two run_ut details files (e.g. NPU and GPU) are the input of api_precision_compare."""
    run_ok("-api_info", real_dump, "-o", tmp_path / "npu")
    run_ok("-api_info", real_dump, "-o", tmp_path / "gpu")
    npu, gpu = outputs(tmp_path / "npu")[1], outputs(tmp_path / "gpu")[1]
    r = run_cli("-npu", npu, "-gpu", gpu, "-o", tmp_path / "cmp", command="api_precision_compare")
    assert r.returncode == 0, r.stderr[-2000:]
    result = glob.glob(str(tmp_path / "cmp" / "api_precision_compare_result_*.csv"))
    rows = read_csv(result[0])
    assert rows[0][:3] == ["API Name", "Forward Test Success", "Backward Test Success"]
    names = {row[0] for row in rows[1:]}
    assert "Functional.linear.0" in names and "Torch.matmul.2" in names


def test_cpp_pt_reader_matches_torch_load(tmp_path):
    from msprobe import _core
    from msprobe.pytorch.run_ut.tensor_io import load_dumped_tensor
    cases = {"view": torch.arange(24.).reshape(4, 6)[:, 1:4], "bf16": torch.randn(3, 5).bfloat16(),
             "half": torch.randn(7).half(), "zero_dim": torch.tensor(3), "empty": torch.empty(0, 3),
             "bool": torch.tensor([True, False]), "c64": torch.randn(4, dtype=torch.complex64),
             "nan": torch.tensor([1.0, float("nan"), float("inf")]), "grad": torch.ones(3, requires_grad=True),
             "param": torch.nn.Parameter(torch.ones(2)), "dict": {"a": torch.ones(1)}}
    store = _core.reader.TensorStore(str(tmp_path))
    for name, value in cases.items():
        p = str(tmp_path / f"{name}.pt")
        torch.save(value, p)
        try:
            store.load(f"{name}.pt")
            read_in_cpp = True
        except _core.reader.PtUnsupported:
            read_in_cpp = False
        assert read_in_cpp == (name not in ("param", "dict")), name   # those fall back to torch.load
        if name == "dict":
            continue
        a, b = torch.load(p, weights_only=True), load_dumped_tensor(store, f"{name}.pt")
        assert a.dtype == b.dtype and a.shape == b.shape and a.requires_grad == b.requires_grad, name
        raw = lambda t: t.detach().contiguous().reshape(-1).view(torch.uint8)  # noqa: E731 (NaN-safe)
        assert torch.equal(raw(a), raw(b)), name
