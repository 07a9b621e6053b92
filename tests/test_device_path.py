"""The device path (msprobe/pytorch/device_stats.py) forced onto CPU tensors: statistics computed
with torch's reductions and handed to the core as numbers must give the host path's records;
host copies must hold the values of the moment a tensor was recorded; reads happen in batches,
late, without changing what is recorded. (The whole dump matrix also runs through this path:
conftest.device_path, used by test_dump_pytorch, test_fidelity and test_parity_original.)"""
import os
import struct

import pytest
import torch
from conftest import FORCE_DEVICE_ENV, load_dump, rank_dir
from dump_files import same_statistic

from msprobe import _core
from msprobe.core import device_path
from msprobe.core.device_recorder import DeviceRecorder
from msprobe.pytorch.device_stats import TorchDeviceRecorder

INF, NAN = float("inf"), float("nan")


def zoo():
    g = torch.Generator().manual_seed(0)
    r = torch.randn(7, 5, generator=g)
    yield "f32", r
    yield "f32 transposed", r.t()
    yield "f32 strided", r[:, ::2]
    yield "f16", (r * 100).half()
    yield "bf16", r.bfloat16()
    yield "f64 tiny", r.double() * 1e-200
    yield "f64 big", r.double() * 1e200
    yield "c64", torch.complex(r, -r)
    yield "c128", torch.complex(r.double(), r.double())
    yield "bool", r > 0
    yield "all true", torch.ones(3, dtype=torch.bool)
    yield "u8", torch.randint(0, 255, (9,), generator=g, dtype=torch.uint8)
    yield "i8", torch.randint(-128, 127, (9,), generator=g, dtype=torch.int8)
    yield "i16", torch.randint(-3000, 3000, (9,), generator=g, dtype=torch.int16)
    yield "i32", torch.randint(-2**31, 2**31 - 1, (9,), generator=g, dtype=torch.int32)
    yield "i64", torch.tensor([2**53 + 1, -5, 7])
    yield "0-dim f32", torch.tensor(1.25)
    yield "0-dim inf", torch.tensor(-INF)
    yield "0-dim i64", torch.tensor(-12)
    yield "0-dim bool", torch.tensor(True)
    yield "0-dim bf16", torch.tensor(3.5, dtype=torch.bfloat16)
    yield "0-dim c64", torch.tensor(3 + 4j)
    yield "nan and inf", torch.tensor([1.0, INF, -2.0, NAN])
    yield "inf only", torch.tensor([INF, -INF, INF])
    yield "+inf and finite", torch.tensor([INF, 2.0, -1.0])
    yield "nan only", torch.tensor([NAN, NAN])
    yield "inf and nan", torch.tensor([INF, NAN])
    yield "f16 overflowing squares", torch.full((4,), 60000.0, dtype=torch.float16)
    yield "c64 inf", torch.tensor([complex(INF, NAN), 1 + 1j])
    yield "neg view", torch.neg(r.bfloat16()).t()


def device_stats_of(tensors):
    """Runs the recorder as the core does: record all, prepare(force), resolve in order."""
    rec = TorchDeviceRecorder(copy_tensors=False, forced=True)
    assert isinstance(rec, DeviceRecorder) and rec.all_tensors
    handles = [rec.record(t) for t in tensors]
    assert rec.prepare([], True) == len(tensors)
    out = []
    for t, h in zip(tensors, handles):
        numbers = rec.resolve(h)
        shape = list(t.shape)
        d = _core.external_tensor_stats(str(t.dtype), shape, numbers)
        two = None
        if d["rescale"] is not None:
            assert t.dtype in (torch.float64, torch.complex128)
            two = struct.unpack("2d", rec.rescaled(h, d["rescale"]))
        if d["need_extremes"]:
            extra = rec.extremes(h)
            assert extra is not None
            numbers += extra
        d = _core.external_tensor_stats(str(t.dtype), shape, numbers, two)
        assert not d.pop("need_extremes")
        del d["rescale"]
        out.append(d)
    return out


@pytest.mark.parametrize("name,t", list(zoo()), ids=[n for n, _ in zoo()])
def test_device_numbers_give_the_host_record(name, t):
    (dev,) = device_stats_of([t])
    host = _core.tensor_stats(t)
    assert set(dev) == set(host), name
    for key, h in host.items():
        # Max/Min and the extremes are exact; Mean/Norm are float32 sums on the device (the
        # host sums in double), so they agree to float32 rounding.
        rel = 2e-6 if key in ("Mean", "Norm") and t.dtype not in (torch.float64,
                                                                   torch.complex128) else 0
        if key in ("Mean", "Norm") and t.dtype in (torch.float64, torch.complex128):
            rel = 1e-12
        assert same_statistic(dev[key], h, rel), (name, key, dev[key], h)


def test_many_tensors_in_one_batch_keep_their_order():
    ts = [torch.full((3,), float(i)) for i in range(150)] + [torch.arange(i + 1) for i in range(70)]
    for t, d in zip(ts, device_stats_of(ts)):
        assert d["Max"] == float(t.max()) and d["Min"] == float(t.min())


def run_forced(tmp_path, monkeypatch, body, task="statistics", summary_mode="statistics"):
    from msprobe.pytorch import PrecisionDebugger
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(FORCE_DEVICE_ENV, "1")
    (tmp_path / "config.json").write_text(
        '{"task": "%s", "dump_path": "./dump", "level": "L1", "statistics": '
        '{"summary_mode": "%s"}}' % (task, summary_mode))
    PrecisionDebugger._reset_for_tests()
    try:
        dbg = PrecisionDebugger(config_path=str(tmp_path / "config.json"))
        recorder = dbg.device_recorder
        dbg.start()
        body()
        dbg.stop()
        dbg.step()
    finally:
        PrecisionDebugger._reset_for_tests()
    return load_dump(tmp_path / "dump")[0]["data"], recorder


def test_records_are_read_late_in_batches(tmp_path, monkeypatch):
    xs = [torch.randn(4) for _ in range(200)]

    def body():
        for x in xs:
            torch.tanh(x)

    data, recorder = run_forced(tmp_path, monkeypatch, body)
    assert recorder.recorded == 400                     # every input and output went through it
    assert recorder.waits_avoided > 0                   # ... and some were read after later ones
    assert recorder.pending == 0 and not recorder.launched
    for i, x in enumerate(xs):
        t = data[f"Torch.tanh.{i}.forward"]["input_args"][0]
        assert t["Max"] == float(x.max()) and t["Min"] == float(x.min())


def test_values_are_those_of_the_moment_of_recording(tmp_path, monkeypatch):
    x = torch.tensor([1.0, 2.0, 3.0])

    def body():
        y = torch.relu(x)        # y recorded as an output ...
        y.mul_(10)               # ... then changed in place before its batch is read
        torch.relu(y)

    data, _ = run_forced(tmp_path, monkeypatch, body)
    assert data["Torch.relu.0.forward"]["output"][0]["Max"] == 3.0
    assert data["Torch.relu.1.forward"]["input_args"][0]["Max"] == 30.0


def test_tensor_files_hold_the_recorded_bytes(tmp_path, monkeypatch):
    x = torch.randn(6, 4).t()            # non-contiguous
    b = torch.randn(3, 3).bfloat16()

    def body():
        y = torch.tanh(x)
        torch.relu(b)
        y.add_(1)                        # after recording: the file keeps the old values

    data, recorder = run_forced(tmp_path, monkeypatch, body, task="tensor")
    assert recorder.recorded == 6      # tanh, relu, add_: inputs and outputs
    d = os.path.join(rank_dir(tmp_path / "dump"), "dump_tensor_data")
    out = torch.load(os.path.join(d, "Torch.tanh.0.forward.output.0.pt"), weights_only=True)
    assert torch.equal(out, torch.tanh(x))
    assert torch.equal(torch.load(os.path.join(d, "Torch.relu.0.forward.input.0.pt"),
                                  weights_only=True), b)
    assert data["Torch.tanh.0.forward"]["input_args"][0]["Max"] == float(x.max())


def test_md5_from_the_host_copy(tmp_path, monkeypatch):
    import zlib
    x = torch.randn(5, 3)

    data, _ = run_forced(tmp_path, monkeypatch, lambda: torch.tanh(x), summary_mode="md5")
    assert data["Torch.tanh.0.forward"]["input_args"][0]["md5"] == \
        f"{zlib.crc32(x.numpy().tobytes()):08x}"


def test_tensors_beyond_the_host_budget_are_copied_synchronously(tmp_path, monkeypatch):
    monkeypatch.setattr(device_path, "HOST_COPY_BYTES", 64 << 10)
    big = torch.randn(256, 256)          # 256 KiB: over the budget
    small = torch.randn(8)

    def body():
        torch.relu(big)
        torch.relu(small)

    _, recorder = run_forced(tmp_path, monkeypatch, body, task="tensor")
    assert recorder.recorded == 2        # the small input and output only
    d = os.path.join(rank_dir(tmp_path / "dump"), "dump_tensor_data")
    assert torch.equal(torch.load(os.path.join(d, "Torch.relu.0.forward.input.0.pt"),
                                  weights_only=True), big)


def test_extremes_left_out_when_the_tensor_changed_before_they_were_needed(tmp_path, monkeypatch):
    kept, changed = torch.tensor([INF, 1.0, -2.0]), torch.tensor([INF, 1.0, -2.0])

    def body():
        torch.abs(kept)
        torch.abs(changed)
        changed.zero_()                  # in place, before the batch is read

    data, _ = run_forced(tmp_path, monkeypatch, body)
    a = data["Torch.abs.0.forward"]["input_args"][0]
    assert a["Max"] == INF and a["Max_except_inf_nan"] == 1.0
    b = data["Torch.abs.1.forward"]["input_args"][0]
    assert b["Max"] == INF and "Max_except_inf_nan" not in b


def test_a_whole_step_reaches_the_host_in_one_copy_per_dtype_through_reused_buffers():
    # grad_probe's path: host_views concatenates a step's tensors per (device, dtype), copies
    # each group into one buffer of the copy pool and gives the buffers back afterwards.
    tensors = [t for _, t in zoo()]
    rec = TorchDeviceRecorder(copy_tensors=True, forced=True)
    with rec.host_views(tensors) as host:
        assert len(host) == len(tensors)
        for t, h in zip(tensors, host):
            assert h.shape == t.shape and h.dtype == t.dtype
            assert h.data_ptr() != t.data_ptr()
            raw = [x.contiguous().reshape(-1).view(torch.uint8).numpy().tobytes() for x in (h, t)]
            assert raw[0] == raw[1]
        groups = {t.dtype for t in tensors}
        assert rec.buffers.in_use and not rec.buffers.cached
        ptrs = {h.untyped_storage().data_ptr() for h in host}
        assert len(ptrs) == len(groups)   # one host buffer per dtype
    assert rec.buffers.in_use == 0
    cached = rec.buffers.cached
    with rec.host_views(tensors):
        assert rec.buffers.cached < cached   # the same buffers again
    plain = TorchDeviceRecorder(copy_tensors=True, forced=False)
    with plain.host_views(tensors) as host:
        assert all(h is t for h, t in zip(host, tensors))   # CPU tensors are read in place
