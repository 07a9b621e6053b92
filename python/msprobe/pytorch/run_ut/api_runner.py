"""One API call of a dump, replayed and judged (accuracy-checker spec §1.5-§1.13)."""
import gc
import os

import torch

from msprobe import _core
from msprobe.core import log
from msprobe.pytorch.run_ut import replay as ru
from msprobe.pytorch.run_ut.data_generate import ArgBuilder, InputError, output_dtype, preprocess_record
from msprobe.pytorch.run_ut.seeding import api_seed
from msprobe.pytorch.run_ut.tensor_io import save_pt

SUPPORTED_TYPES = ("Functional", "Tensor", "Torch", "Aten", "NPU")
INDEXING_APIS = ("__getitem__", "__setitem__")


class ApiData:
    __slots__ = ("bench_out", "device_out", "bench_grad", "device_grad", "grad_in", "inputs",
                 "backward_message")

    def __init__(self):
        self.bench_out = self.device_out = None
        self.bench_grad = self.device_grad = self.grad_in = None
        self.inputs = ()
        self.backward_message = ""


def _host(t):
    return t.detach() if t.device.type == "cpu" else t.detach().cpu()


def _error_text(e):
    text = str(e).strip()
    if isinstance(e, KeyError) and text.startswith("'"):
        text = f"KeyError: {text}"
    return text or type(e).__name__


class ApiRunner:
    def __init__(self, dump, settings):
        self.dump = dump
        self.settings = settings
        self.checker = settings.checker
        self.precision = settings.checker.precision
        self.real_data_dir = dump.real_data_dir if dump.has_real_data else None
        self.device = ru.select_device(settings.device_id)
        if settings.jit_compile and ru.device_type(self.device) == "npu":
            torch.npu.set_compile_mode(jit_compile=True)
            torch.npu.config.allow_internal_format = True
        self._count = 0
        self._cuda = ru.device_type(self.device) == "cuda"

    def run(self, i):
        """The ApiResult of API i (never raises for problems of the API itself)."""
        name = self.dump.name(i)
        res = _core.runut.ApiResult(name, self.precision)
        split = _core.runut.split_api_name(name)
        if name.split(".")[0] == "Distributed" or split is None or split[0] not in SUPPORTED_TYPES:
            res.skip(f"API {name} not support for run ut. SKIP.")
            return res
        api_type, api_name = split
        if self.checker.is_filtered(api_name):
            res.skip(f"API {api_name} in black list or not in white list. SKIP.")
            return res
        self._api_seed = api_seed(name)
        self._reseed()
        try:
            data = self._run_api(i, api_type, api_name)
            self._compare(res, name, api_name, data)
        except Exception as e:  # the API is SKIPped with the reason; the run goes on
            text = _error_text(e)
            if "expected scalar type Long" in text:
                log.warning(f"API {api_name} does not support int32 tensors on the CPU.")
            else:
                log.error(f"Run {name} UT Error: {text}")
            res = _core.runut.ApiResult(name, self.precision)
            res.skip(text)
            return res
        if self.settings.save_error_data and self.settings.error_data_dir and (
                res.forward_status != "pass" or res.backward_status not in ("pass", " ")):
            try:
                self._save_error_data(name, data)
            except (OSError, RuntimeError, ValueError) as e:
                log.warning(f"{name}: cannot save the error data: {e}")
        self._count += 1
        if self._count % 200 == 0:
            gc.collect()
            if ru.device_type(self.device) == "cuda":
                torch.cuda.empty_cache()
        return res

    def _reseed(self):
        # CPU generator only (torch.manual_seed also queues CUDA seeding, ~3 ms per call).
        torch.default_generator.manual_seed(self._api_seed)
        if self._cuda:
            torch.cuda.manual_seed(self._api_seed)

    # ---- replay -----------------------------------------------------------------------------
    def _run_api(self, i, api_type, api_name):
        record = self.dump.forward(i)
        if not isinstance(record, dict):
            raise InputError(f"the forward record must be an object, got {type(record).__name__}")
        preprocess_record(api_name, record)
        kwargs_rec = record.get("input_kwargs")
        need_grad = not (isinstance(kwargs_rec, dict) and "out" in kwargs_rec)
        builder = ArgBuilder(api_name, self.real_data_dir)
        kwargs = builder.kwargs(kwargs_rec)
        args = builder.args(record.get("input_args") or [], need_grad)
        if api_name in INDEXING_APIS and len(args) > 1 and isinstance(args[1], list) and any(
                x is None or x is Ellipsis or isinstance(x, (slice, list, tuple, torch.Tensor)) for x in args[1]):
            # x[a, b] records its index tuple as a JSON list; a list holding slices is a tuple index
            # (torch's legacy rule, deprecated since 2.9), a list of ints stays an advanced index.
            args[1] = tuple(args[1])
        if api_name == "__getitem__" and len(args) > 1 and isinstance(args[1], torch.Tensor) \
                and args[1].dtype == torch.uint8:
            args[1] = args[1].bool()  # uint8 masks are bool masks (torch no longer accepts uint8)
        data = ApiData()
        data.inputs = (args, kwargs)
        msg = ""
        if not need_grad:
            msg += ru.BackwardMessage.UNSUPPORT_BACKWARD_MESSAGE
        if api_name in ru.NOT_BACKWARD_APIS:
            need_grad = False
            msg += ru.BackwardMessage.NO_BACKWARD_RESULT_MESSAGE
        if api_name in ru.UNSUPPORTED_BACKWARD_APIS:
            need_grad = False
            msg += ru.BackwardMessage.UNSUPPORT_API_MESSAGE
        need_backward = need_grad and self.dump.has_backward(i)

        device_extra = {}
        dev_rec = kwargs.get("device")
        if isinstance(dev_rec, dict):
            del kwargs["device"]
            if dev_rec.get("value"):
                device_extra["device"] = self.device
        dev_args, dev_kwargs = ru.device_params(args, kwargs, need_backward, api_name, self.device)
        dev_kwargs.update(device_extra)
        cpu_args, cpu_kwargs, autocast_dtype, is_autocast = ru.bench_params(args, kwargs, need_backward, api_name)
        out_dtype = output_dtype(record)
        if not is_autocast and out_dtype is not None:
            is_autocast = autocast_dtype != out_dtype
            autocast_dtype = out_dtype

        bench_fn = ru.get_api_function(api_type, api_name, self.device, benchmark=True)
        device_fn = ru.get_api_function(api_type, api_name, self.device)
        # Both runs start from the same generator state, so random APIs (dropout, rand_like, ...)
        # draw the same numbers on a CPU device and comparable ones elsewhere.
        self._reseed()
        data.bench_out = ru.exec_api(bench_fn, cpu_args, cpu_kwargs)
        self._reseed()
        data.device_out = ru.exec_api(device_fn, dev_args, dev_kwargs,
                                      ru.autocast_context(self.device, autocast_dtype, is_autocast))

        grad_index = ru.GRAD_INDEX.get(api_name)
        if need_backward:
            if grad_index is None and isinstance(data.bench_out, (list, tuple)):
                msg += ru.BackwardMessage.MULTIPLE_BACKWARD_MESSAGE
            else:
                bwd = self.dump.backward(i)
                grads = builder.args(bwd.get("input") if isinstance(bwd, dict) else None, True, "backward input")
                if not grads or not isinstance(grads[0], torch.Tensor):
                    raise InputError("the backward record holds no gradient tensor in input[0]")
                grad = grads[0]
                bench_grad, _, _, _ = ru.bench_params(grad, {}, False, api_name)
                data.grad_in = bench_grad
                data.bench_grad = ru.run_backward(cpu_args, bench_grad, grad_index, data.bench_out)
                device_grad = grad.clone().detach().to(self.device)
                data.device_grad = ru.run_backward(dev_args, device_grad, grad_index, data.device_out)
        if api_name == "npu_fusion_attention":
            data.bench_out = data.bench_out[0]
            data.device_out = data.device_out[0]
        data.backward_message = msg
        return data

    # ---- comparison -------------------------------------------------------------------------
    def _compare(self, res, name, api_name, data):
        dropout = "dropout" in name
        self._compare_direction(res, False, api_name, data.bench_out, data.device_out, dropout)
        if data.bench_grad and data.device_grad:
            if dropout:
                self._compare_direction(res, True, api_name, data.bench_grad[0], data.device_grad[0], True)
            else:
                self._compare_direction(res, True, api_name, data.bench_grad, data.device_grad, False)
        if data.backward_message:
            res.set_backward_message(data.backward_message)

    def _compare_direction(self, res, backward, api_name, bench, device, dropout):
        if dropout and isinstance(bench, torch.Tensor) and isinstance(device, torch.Tensor):
            res.add_dropout(backward, _host(bench), _host(device))
            return
        if isinstance(bench, (list, tuple)):
            if not isinstance(device, (list, tuple)) or len(bench) > len(device):
                res.add_message_row(backward, "error", "bench and npu output structure is different.")
                return
            for b, d in zip(bench, device):
                self._compare_one(res, backward, api_name, b, d)
        else:
            self._compare_one(res, backward, api_name, bench, device)

    def _compare_one(self, res, backward, api_name, b, d, depth=0):
        if not isinstance(b, type(d)):
            res.add_message_row(backward, "error", "bench and npu output type is different.")
        elif isinstance(b, dict):
            if set(b) != set(d):
                res.add_message_row(backward, "error", "bench and npu output dict keys are different.")
            elif depth > ru.MAX_DEPTH:
                res.add_message_row(backward, "error", "output nested too deeply")
            else:
                for k in b:
                    self._compare_one(res, backward, api_name, b[k], d[k], depth + 1)
        elif isinstance(b, torch.Tensor):
            res.add_tensor(backward, api_name, _host(b), _host(d))
        elif isinstance(b, (bool, int, float, str)):
            res.add_builtin(backward, str(type(b)), str(type(d)), bool(b == d))
        elif b is None:
            res.add_message_row(backward, "SKIP", "Bench output is None, skip this test.")
        else:
            res.add_message_row(backward, "error", f"Unexpected output type in compare_core: {type(b)}")

    # ---- -save_error_data -------------------------------------------------------------------
    def _save_error_data(self, name, data):
        folder = self.settings.error_data_dir
        os.makedirs(folder, mode=0o750, exist_ok=True)

        def save(prefix, element, counter):
            def walk(x, depth=0):
                if depth > ru.MAX_DEPTH:
                    return
                if isinstance(x, torch.Tensor):
                    save_pt(x, os.path.join(folder, f"{prefix}.{counter[0]}.pt"))
                    counter[0] += 1
                elif isinstance(x, (list, tuple)):
                    for item in x:
                        walk(item, depth + 1)
                elif isinstance(x, dict):
                    for item in x.values():
                        walk(item, depth + 1)
                else:
                    counter[0] += 1
            walk(element)

        inputs = [0]  # args and kwargs share one numbering (1.2.1 restarted it and overwrote files)
        for element in data.inputs:
            save(f"{name}.forward.input", element, inputs)
        save(f"{name}.forward.output.bench", data.bench_out, [0])
        save(f"{name}.forward.output.device", data.device_out, [0])
        save(f"{name}.backward.input", data.grad_in, [0])
        save(f"{name}.backward.output.bench", data.bench_grad, [0])
        save(f"{name}.backward.output.device", data.device_grad, [0])
