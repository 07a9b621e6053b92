// msprobe._core.DumpSession: one call per framework event (API pre/post/backward, module
// pre/post, parameter gradient), handed to the core's RecordBuilder with Python values adapted by
// PyRecordAdapter.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdlib>
#include <stdexcept>

#include "msprobe/base/error.h"
#include "msprobe/dump/dump_session.h"
#include "msprobe/dump/record_builder.h"
#include "py_record_adapter.h"
#include "tensor_from_python.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace msprobe {
namespace {

class PySession {
 public:
  PySession(const DumpConfig& cfg, const std::string& framework, size_t writer_memory_mb)
      : session_(cfg, options(framework, writer_memory_mb)),
        adapter_(session_, types_),
        builder_(session_, adapter_) {}

  static SessionOptions options(const std::string& framework, size_t mb) {
    SessionOptions o;
    o.framework = framework == "mindspore" ? Framework::kMindSpore : Framework::kPyTorch;
    o.framework_name = framework;
    o.writer_memory_bytes = mb << 20;
    return o;
  }

  void set_types(nb::object size_type, nb::object numpy_generic, nb::object fallback, nb::object to_host,
                 std::string internal_prefix) {
    types_.size_type = std::move(size_type);
    types_.numpy_generic = std::move(numpy_generic);
    types_.fallback = std::move(fallback);
    types_.to_host = std::move(to_host);
    adapter_.set_internal_prefix(std::move(internal_prefix));
  }

  // overflow_check: report(level, message) logs the first overflow and the step results;
  // library_prefixes are the folders whose frames are not the user's code.
  void set_overflow_reporting(nb::object report, std::vector<std::string> library_prefixes) {
    adapter_.set_report(std::move(report));
    session_.set_library_prefixes(std::move(library_prefixes));
  }

  // The adapter's DeviceRecorder (msprobe/core/device_recorder.py): its deferred type, resolve(),
  // and the optional record/prepare/extremes/rescaled hooks (None: not used) of arg_encoder.h.
  void attach_recorder(nb::object recorder) {
    auto hook = [&recorder](const char* name) {
      nb::object f = recorder.attr(name);
      return f.is_none() ? nb::object() : f;
    };
    nb::object deferred = recorder.attr("deferred_type");
    if (!PyType_Check(deferred.ptr()))
      throw nb::type_error("attach_recorder: the recorder's deferred_type must be a class");
    types_.deferred = std::move(deferred);
    types_.resolve = recorder.attr("resolve");
    types_.device_record = hook("record");
    types_.prepare = hook("prepare");
    types_.extremes = hook("extremes");
    types_.rescaled = hook("rescaled");
    types_.device_all = nb::cast<bool>(recorder.attr("all_tensors"));
    builder_.set_deferral(nb::cast<size_t>(recorder.attr("batch_records")),
                          nb::cast<double>(recorder.attr("max_age_s")));
  }

  int64_t api_pre(const std::string& api, nb::handle args, nb::handle kwargs) {
    return builder_.api_pre(api, ref(args), ref(kwargs));
  }
  bool api_post(const std::string& api, int64_t idx, nb::handle output) {
    if (!fault_api_.empty() && api == fault_api_)
      throw std::runtime_error("injected fault (MSPROBE_TEST_FAULT) in " + api);
    return builder_.api_post(api, idx, ref(output));
  }
  void api_backward_begin(const std::string& api, int64_t idx) { builder_.api_backward_begin(api, idx); }
  void api_backward(const std::string& api, int64_t idx, nb::handle grad_outputs, nb::handle grad_inputs) {
    builder_.api_backward(api, idx, ref(grad_outputs), ref(grad_inputs));
  }
  bool module_post_forward(const std::string& name, nb::handle args, nb::handle kwargs, nb::handle output,
                           nb::handle params) {
    return builder_.module_post_forward(name, ref(args), ref(kwargs), ref(output), ref(params));
  }
  void module_post_backward(const std::string& name, nb::handle grad_input, nb::handle grad_output) {
    builder_.module_post_backward(name, ref(grad_input), ref(grad_output));
  }
  void param_grad(const std::string& prefix, const std::string& param, nb::handle grad,
                  std::vector<std::string> names) {
    builder_.param_grad(prefix, param, ref(grad), std::move(names));
  }

  // kind "parameters" or "inputs": replaces that set of named tensors ((name, tensor) pairs).
  void name_tensors(const std::string& kind, nb::list pairs) {
    if (kind != "parameters" && kind != "inputs")
      throw nb::value_error("name_tensors: kind must be 'parameters' or 'inputs'");
    PythonTypes::NamedTensors& set = kind == "parameters" ? types_.parameters : types_.model_inputs;
    PythonTypes::NamedTensors fresh;
    for (nb::handle pair : pairs) {
      nb::tuple t = nb::cast<nb::tuple>(pair);
      nb::object tensor = nb::borrow(t[1]);
      PyTensor pt;
      try {
        if (!tensor_from_python(tensor, pt) || pt.view.data == nullptr) continue;
      } catch (const InvalidInput&) {
        continue;  // a dtype the core cannot view: it is recorded as null anyway
      }
      // A tensor shared under two names (tied embeddings) keeps the first.
      fresh.names[pt.view.data].emplace_back(pt.view.numel(), nb::cast<std::string>(t[0]));
      fresh.held.push_back(std::move(tensor));
    }
    set = std::move(fresh);
  }

  DumpSession& core() { return session_; }
  RecordBuilder& record() { return builder_; }

 private:
  static ValueRef ref(nb::handle h) { return PyRecordAdapter::ref(h); }

  // Testing aid: MSPROBE_TEST_FAULT=<API name> makes recording that API's output fail as an
  // internal error of the probe would (docs/reliability.md).
  std::string fault_api_ = [] {
    const char* v = std::getenv("MSPROBE_TEST_FAULT");
    return std::string(v ? v : "");
  }();
  PythonTypes types_;
  DumpSession session_;
  PyRecordAdapter adapter_;
  RecordBuilder builder_;
};

}  // namespace
}  // namespace msprobe

void bind_session(nb::module_& m) {
  using msprobe::PySession;
  nb::class_<PySession>(m, "DumpSession")
      .def(nb::init<const msprobe::DumpConfig&, const std::string&, size_t>(), "config"_a,
           "framework"_a = "pytorch", "writer_memory_mb"_a = 512)
      .def("set_types", &PySession::set_types, "size_type"_a.none(), "numpy_generic"_a.none(),
           "fallback"_a.none(), "to_host"_a.none(), "internal_prefix"_a)
      .def(
          "start", [](PySession& s, int64_t rank) { return s.core().start(rank); }, "rank"_a = -1)
      .def("stop", [](PySession& s) { s.record().stop(); })
      .def("step", [](PySession& s) { s.record().step(); })
      .def("close", [](PySession& s) { s.record().close(); })
      .def("set_overflow_reporting", &PySession::set_overflow_reporting, "report"_a.none(),
           "library_prefixes"_a)
      .def("attach_recorder", &PySession::attach_recorder, "recorder"_a,
           "Tensors read late go through this DeviceRecorder (msprobe.core.device_recorder).")
      .def(
          "resolve", [](PySession& s) { s.record().resolve(true); },
          "Reads every deferred value now (before an in-place API changes its tensor).")
      .def(
          "flush", [](PySession& s) { s.core().flush(); }, nb::call_guard<nb::gil_scoped_release>())
      .def("name_tensors", &PySession::name_tensors, "kind"_a, "pairs"_a,
           "Names tensors for tensor_names.json: kind 'parameters' (the model's parameters and "
           "buffers) or 'inputs' (the model's forward inputs), each [(name, tensor), ...].")
      .def("api_pre", &PySession::api_pre, "api"_a, "args"_a.none(), "kwargs"_a.none())
      .def("api_post", &PySession::api_post, "api"_a, "index"_a, "output"_a.none())
      .def("api_backward_begin", &PySession::api_backward_begin, "api"_a, "index"_a)
      .def("api_backward", &PySession::api_backward, "api"_a, "index"_a, "grad_outputs"_a.none(),
           "grad_inputs"_a.none())
      .def("module_pre",
           [](PySession& s, const std::string& prefix, const std::string& direction) {
             return s.record().module_pre(prefix, direction);
           })
      .def("module_post_forward", &PySession::module_post_forward, "name"_a, "args"_a.none(),
           "kwargs"_a.none(), "output"_a.none(), "params"_a.none())
      .def("module_post_backward", &PySession::module_post_backward, "name"_a, "grad_input"_a.none(),
           "grad_output"_a.none())
      .def("param_grad", &PySession::param_grad, "prefix"_a, "param"_a, "grad"_a.none(), "names"_a)
      .def(
          "selects", [](PySession& s, const std::string& name) { return s.core().scope().check(name); },
          "name"_a,
          "Whether the scope / list filter selects the call `name` (free_benchmark: exact names, no range).")
      .def("enter_region", [](PySession& s, const std::string& n) { s.core().enter_region(n); })
      .def("exit_region", [](PySession& s, const std::string& n) { s.core().exit_region(n); })
      .def_prop_ro(
          "needs_tensor_bytes",
          [](PySession& s) { return s.core().tensor_task() || s.core().record_options().want_crc; },
          "The task reads every byte of a tensor (tensor files or md5), not only its "
          "statistics.")
      .def_prop_ro("switch_on", [](PySession& s) { return s.core().switch_on(); })
      .def_prop_ro("ended", [](PySession& s) { return s.core().ended(); })
      .def_prop_ro("overflow_terminated", [](PySession& s) { return s.core().overflow_terminated(); })
      .def_prop_ro("disabled", [](PySession& s) { return s.core().disabled(); })
      .def_prop_ro("disabled_reason", [](PySession& s) { return s.core().disabled_reason(); })
      .def(
          "disable_after_error",
          [](PySession& s, const std::string& reason, const std::string& call) {
            // Entries recorded before the error may still wait for deferred reads: write them.
            try {
              s.record().resolve(true);
            } catch (const std::exception&) {
            }
            s.core().disable_after_error(reason, call);
          },
          "reason"_a, "call"_a = "",
          "An internal error of the probe: stop collecting and say so in the step's dump.json.")
      .def("count_unrecorded", [](PySession& s) { s.core().count_unrecorded(); })
      .def_prop_ro("unrecorded_calls", [](PySession& s) { return s.core().unrecorded_calls(); })
      .def_prop_ro("failed_call", [](PySession& s) { return s.core().failed_call(); })
      .def_prop_ro("failed_step", [](PySession& s) { return s.core().failed_step(); })
      .def_prop_ro("current_step", [](PySession& s) { return s.core().current_step(); })
      .def_prop_ro("entries_written", [](PySession& s) { return s.core().entries_written(); })
      .def_prop_ro("rank_dir", [](PySession& s) { return s.core().rank_dir(); })
      .def("take_repair_messages", [](PySession& s) { return s.core().take_repair_messages(); });
}
