// Bindings of run_ut's core (msprobe._core.runut): dump.json reading, per-API verdicts and the
// two CSV files. The Python side replays the framework calls; everything else is here.
//   RunutDump.load(path)                 dump.json -> forward/backward records
//   ApiResult(name, precision)           rows of one API (compare via the check library)
//   ApiResult / MsApiResult              rows of one API (PyTorch's / MindSpore's run_ut)
//   ResultWriter(result, details, layout) append one API at a time (details, then result row)
//   prepare_resume / reorder_result_files / split_api_name / round_to_hf32_
#include <Python.h>
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cmath>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "json_to_python.h"
#include "msprobe/base/error.h"
#include "msprobe/check/standards.h"
#include "msprobe/jobs/run_ut_result_files.h"
#include "msprobe/runut/api_result.h"
#include "msprobe/runut/dump_apis.h"
#include "msprobe/runut/input_rules.h"
#include "msprobe/runut/ms_api_result.h"
#include "record_class.h"
#include "tensor_from_python.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace {

using msprobe::JsonValue;
using msprobe::check::Status;

msprobe::runut::CsvLayout layout_from(const std::string& s) {
  if (s == "pytorch") return msprobe::runut::CsvLayout::kPyTorch;
  if (s == "mindspore") return msprobe::runut::CsvLayout::kMindSpore;
  throw msprobe::InvalidInput("unknown run_ut framework '" + s + "': expected pytorch or mindspore");
}

Status status_from(const std::string& s) {
  for (Status x : {Status::kPass, Status::kWarning, Status::kError, Status::kSkip, Status::kBlank}) {
    if (s == msprobe::check::status_text(x)) return x;
  }
  throw msprobe::InvalidInput("unknown status '" + s + "': expected pass, Warning, error, SKIP or ' '");
}

// The CSV text of a result (ApiResult or MsApiResult): its details rows, then its result row.
template <class Result>
std::pair<std::string, std::string> csv_texts(const Result& r) {
  std::pair<std::string, std::string> t;
  r.append_details_csv(t.first);
  r.append_result_csv(t.second);
  return t;
}

template <class Result>
void write_result(msprobe::runut::ResultWriter& w, const Result& r) {
  const auto t = csv_texts(r);
  nb::gil_scoped_release release;
  w.write_text(t.first, t.second);
}

struct PyDump {
  std::shared_ptr<msprobe::runut::DumpApis> d;
};

}  // namespace

void bind_runut(nb::module_& root) {
  nb::module_ m = root.def_submodule("runut", "run_ut core: dump reading, verdicts, CSV files");
  using msprobe::runut::ApiResult;
  using msprobe::runut::DumpApis;

  nb::class_<PyDump>(m, "RunutDump", "The API calls of a dump.json, in dump order.")
      .def_static(
          "load",
          [](const std::string& path) {
            PyDump p;
            std::shared_ptr<DumpApis> d;
            {
              nb::gil_scoped_release release;
              d = std::make_shared<DumpApis>(DumpApis::load(path));
            }
            p.d = d;
            return p;
          },
          "path"_a)
      .def("__len__", [](const PyDump& p) { return p.d->size(); })
      .def_prop_ro("path", [](const PyDump& p) { return p.d->path(); })
      .def_prop_ro("has_real_data", [](const PyDump& p) { return p.d->has_real_data(); })
      .def_prop_ro("real_data_dir", [](const PyDump& p) { return p.d->real_data_dir(); })
      .def_prop_ro("task", [](const PyDump& p) { return p.d->task(); })
      .def_prop_ro("framework", [](const PyDump& p) { return p.d->framework(); })
      .def_prop_ro("warnings", [](const PyDump& p) { return p.d->warnings(); })
      .def_prop_ro("orphan_backward", [](const PyDump& p) { return p.d->orphan_backward(); })
      .def(
          "name",
          [](const PyDump& p, size_t i) {
            if (i >= p.d->size()) throw nb::index_error();
            return p.d->api(i).name;
          },
          "i"_a)
      .def("names",
           [](const PyDump& p) {
             std::vector<std::string> out;
             out.reserve(p.d->size());
             for (size_t i = 0; i < p.d->size(); ++i) out.push_back(p.d->api(i).name);
             return out;
           })
      .def(
          "forward",
          [](const PyDump& p, size_t i) {
            if (i >= p.d->size()) throw nb::index_error();
            return msprobe::json_to_python(*p.d->api(i).forward);
          },
          "i"_a, "The forward record (a new dict, as json.load builds it).")
      .def(
          "backward",
          [](const PyDump& p, size_t i) -> nb::object {
            if (i >= p.d->size()) throw nb::index_error();
            const JsonValue* b = p.d->api(i).backward;
            return b ? msprobe::json_to_python(*b) : nb::none();
          },
          "i"_a, "The backward record, or None.")
      .def(
          "has_backward",
          [](const PyDump& p, size_t i) {
            if (i >= p.d->size()) throw nb::index_error();
            return p.d->api(i).backward != nullptr;
          },
          "i"_a)
      .def("index_of", [](const PyDump& p, const std::string& name) { return p.d->index_of(name); })
      .def(
          "filter_similar",
          [](const PyDump& p) {
            std::vector<size_t> kept;
            {
              nb::gil_scoped_release release;
              kept = msprobe::runut::filter_similar_apis(*p.d);
            }
            return kept;
          },
          "Indices kept by -f/--filter_api.");

  m.def(
      "split_api_name",
      [](const std::string& full) -> nb::object {
        std::string t, n;
        if (!msprobe::runut::split_api_name(full, &t, &n)) return nb::none();
        return nb::make_tuple(t, n);
      },
      "full_name"_a);

  nb::class_<ApiResult>(m, "ApiResult", "The details rows and the result row of one API.")
      .def(nb::init<std::string, int>(), "name"_a, "precision"_a = 14)
      .def_prop_ro("name", &ApiResult::name)
      .def(
          "add_tensor",
          [](ApiResult& r, bool backward, const std::string& short_name, nb::handle bench,
             nb::handle device) {
            msprobe::PyTensor b = msprobe::host_tensor_arg(bench, "bench output");
            msprobe::PyTensor d = msprobe::host_tensor_arg(device, "device output");
            nb::gil_scoped_release release;
            r.add_tensor(backward, short_name, b.view, d.view);
          },
          "backward"_a, "api_name"_a, "bench"_a, "device"_a)
      .def(
          "add_dropout",
          [](ApiResult& r, bool backward, nb::handle bench, nb::handle device) {
            msprobe::PyTensor b = msprobe::host_tensor_arg(bench, "bench output");
            msprobe::PyTensor d = msprobe::host_tensor_arg(device, "device output");
            nb::gil_scoped_release release;
            r.add_dropout(backward, b.view, d.view);
          },
          "backward"_a, "bench"_a, "device"_a)
      .def("add_builtin", &ApiResult::add_builtin, "backward"_a, "bench_type"_a, "device_type"_a, "equal"_a)
      .def(
          "add_message_row",
          [](ApiResult& r, bool backward, const std::string& status, std::string message) {
            r.add_message_row(backward, status_from(status), std::move(message));
          },
          "backward"_a, "status"_a, "message"_a)
      .def(
          "set_status",
          [](ApiResult& r, bool backward, const std::string& status) {
            r.set_status(backward, status_from(status));
          },
          "backward"_a, "status"_a)
      .def("set_backward_message", &ApiResult::set_backward_message, "message"_a)
      .def("skip", &ApiResult::skip, "message"_a)
      .def_prop_ro("forward_status",
                   [](const ApiResult& r) { return msprobe::check::status_text(r.forward_status()); })
      .def_prop_ro("backward_status",
                   [](const ApiResult& r) { return msprobe::check::status_text(r.backward_status()); })
      .def("num_rows", &ApiResult::num_rows, "backward"_a)
      .def("result_fields", &ApiResult::result_fields)
      .def("details_csv", [](const ApiResult& r) { return csv_texts(r).first; })
      .def("result_csv", [](const ApiResult& r) { return csv_texts(r).second; });

  using msprobe::runut::MsApiResult;
  nb::class_<MsApiResult>(m, "MsApiResult",
                          "The details rows and the result row of one API in MindSpore's run_ut.")
      .def(nb::init<std::string>(), "name"_a)
      .def_prop_ro("name", &MsApiResult::name)
      .def(
          "add_tensor",
          [](MsApiResult& r, bool backward, std::string bench_dtype, std::string tested_dtype,
             std::string shape, nb::handle bench, nb::handle tested) {
            msprobe::PyTensor b = msprobe::host_tensor_arg(bench, "bench output");
            msprobe::PyTensor t = msprobe::host_tensor_arg(tested, "tested output");
            nb::gil_scoped_release release;
            r.add_tensor(backward, std::move(bench_dtype), std::move(tested_dtype), std::move(shape), b.view,
                         t.view);
          },
          "backward"_a, "bench_dtype"_a, "tested_dtype"_a, "shape"_a, "bench"_a, "tested"_a)
      .def("add_not_comparable", &MsApiResult::add_not_comparable, "backward"_a, "bench_dtype"_a,
           "tested_dtype"_a, "shape"_a)
      .def("mark_ran", &MsApiResult::mark_ran, "backward"_a)
      .def("skip", &MsApiResult::skip, "backward"_a, "message"_a)
      .def("status", &MsApiResult::status, "backward"_a)
      .def_prop_ro("forward_status", [](const MsApiResult& r) { return r.status(false); })
      .def_prop_ro("backward_status", [](const MsApiResult& r) { return r.status(true); })
      .def_prop_ro("has_result_row", &MsApiResult::has_result_row)
      .def("num_rows", &MsApiResult::num_rows, "backward"_a)
      .def("details_csv", [](const MsApiResult& r) { return csv_texts(r).first; })
      .def("result_csv", [](const MsApiResult& r) { return csv_texts(r).second; });

  nb::class_<msprobe::runut::ResultWriter>(m, "ResultWriter",
                                           "Appends APIs to the result and details CSV files.")
      .def(
          "__init__",
          [](msprobe::runut::ResultWriter* w, const std::string& result_path, const std::string& details_path,
             const std::string& framework) {
            new (w) msprobe::runut::ResultWriter(result_path, details_path, layout_from(framework));
          },
          "result_path"_a, "details_path"_a, "framework"_a = "pytorch")
      .def("write", &write_result<ApiResult>, "result"_a)
      .def("write", &write_result<MsApiResult>, "result"_a)
      .def("close", &msprobe::runut::ResultWriter::close);

  m.def(
      "result_header",
      [](const std::string& framework) { return msprobe::runut::result_header(layout_from(framework)); },
      "framework"_a = "pytorch");
  m.def(
      "details_header",
      [](const std::string& framework) { return msprobe::runut::details_header(layout_from(framework)); },
      "framework"_a = "pytorch");
  m.def("details_row_api",
        [](const std::string& row) { return std::string(msprobe::runut::details_row_api(row)); });

  using msprobe::runut::ResumeReport;
  msprobe::RecordClass<ResumeReport>(m, "ResumeReport", "What resuming from earlier result files repaired.")
      .ro("done", &ResumeReport::done, "API names with a result row, in file order")
      .ro("dropped_detail_rows", &ResumeReport::dropped_detail_rows, "rows of APIs without a result row")
      .ro("dropped_result_rows", &ResumeReport::dropped_result_rows, "repeated result rows")
      .ro("truncated_torn_record", &ResumeReport::truncated_torn_record);
  m.def(
      "prepare_resume",
      [](const std::string& result_path, const std::string& details_path, const std::string& framework) {
        const msprobe::runut::CsvLayout layout = layout_from(framework);
        nb::gil_scoped_release release;
        return msprobe::runut::prepare_resume(result_path, details_path, layout);
      },
      "result_path"_a, "details_path"_a, "framework"_a = "pytorch");
  m.def(
      "reorder_result_files",
      [](const std::string& result_path, const std::string& details_path,
         const std::vector<std::string>& order) {
        nb::gil_scoped_release release;
        msprobe::runut::reorder_result_files(result_path, details_path, order);
      },
      "result_path"_a, "details_path"_a, "order"_a);

  m.def(
      "round_to_hf32_",
      [](nb::handle tensor) {
        msprobe::PyTensor t = msprobe::host_tensor_arg(tensor, "round_to_hf32_");
        if (t.view.dtype != msprobe::DType::kFloat32 || !t.view.is_contiguous()) {
          throw nb::value_error("round_to_hf32_: expected a contiguous float32 tensor");
        }
        float* p = const_cast<float*>(static_cast<const float*>(t.view.data));
        const int64_t n = t.view.numel();
        nb::gil_scoped_release release;
        msprobe::runut::round_to_hf32(p, n);
      },
      "tensor"_a, "Rounds a contiguous float32 CPU tensor to HF32 in place.");
}
