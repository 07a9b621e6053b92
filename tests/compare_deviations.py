"""Where our compare pairs rows on purpose where 1.2.1 does not (docs/compatibility.md, "Rows of
different float dtypes"): 1.2.1 pairs only fp16 with fp32 or bf16 and, without a mapping, leaves a
MindSpore "Float32" row unpaired with a PyTorch "torch.float32" one. Ours pairs any two floating
dtypes by name and shape, as 26.2.0 does. The golden tests accept exactly those rows."""

FLOATING = {"torch.float16", "torch.bfloat16", "torch.float32", "torch.float64",
            "Float16", "BFloat16", "Float32", "Float64"}


def paired_beyond_original(golden_bench_name, bench_name, npu_dtype, bench_dtype):
    """A row 1.2.1 left unpaired (Bench Name N/A) that ours pairs because both dtypes float."""
    return golden_bench_name == "N/A" and bench_name != "N/A" and npu_dtype in FLOATING and bench_dtype in FLOATING
