// Bindings for config.json: DumpConfig (read-only), load_config, parse_config_text. Core errors
// become ConfigError / MsprobeFileError through error_translator.cc.
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cmath>
#include <optional>
#include <string>

#include "msprobe/base/error.h"
#include "msprobe/config/dump_config.h"
#include "msprobe/format/json_value.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace {

constexpr int kMaxConvertDepth = 512;

std::string py_type_name(nb::handle h) {
  return nb::cast<std::string>(nb::str(nb::handle((PyObject*)Py_TYPE(h.ptr())).attr("__name__")));
}

// A Python argument value (None, bool, int, float, str, list/tuple, dict) as a JsonValue, so the
// core validates arguments with the same rules and messages as file values.
msprobe::JsonValue to_json(nb::handle h, const char* field, int depth = 0) {
  using msprobe::JsonValue;
  if (depth > kMaxConvertDepth) {
    throw msprobe::InvalidInput(std::string("argument: \"") + field + "\" is nested too deeply");
  }
  if (h.is_none()) return JsonValue();
  if (PyBool_Check(h.ptr())) return JsonValue::make_bool(h.ptr() == Py_True);
  if (PyLong_Check(h.ptr()) || (!PyFloat_Check(h.ptr()) && PyIndex_Check(h.ptr()))) {
    nb::object idx = nb::steal(PyNumber_Index(h.ptr()));
    if (!idx.is_valid()) throw nb::python_error();
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(idx.ptr(), &overflow);
    if (overflow == 0) {
      if (v == -1 && PyErr_Occurred()) throw nb::python_error();
      return JsonValue::make_int((int64_t)v);
    }
    double d = PyLong_AsDouble(idx.ptr());
    if (d == -1.0 && PyErr_Occurred()) {
      PyErr_Clear();
      d = overflow > 0 ? HUGE_VAL : -HUGE_VAL;
    }
    return JsonValue::make_float(d);
  }
  if (PyFloat_Check(h.ptr())) return JsonValue::make_float(PyFloat_AsDouble(h.ptr()));
  if (PyUnicode_Check(h.ptr())) {
    Py_ssize_t n = 0;
    const char* s = PyUnicode_AsUTF8AndSize(h.ptr(), &n);
    if (!s) {
      // Lone surrogates cannot be UTF-8: report them as a bad value, not a codec traceback.
      PyErr_Clear();
      throw msprobe::InvalidInput(std::string("argument: \"") + field +
                                  "\" holds a string that is not valid Unicode");
    }
    return JsonValue::make_string(std::string(s, (size_t)n));
  }
  if (PyList_Check(h.ptr()) || PyTuple_Check(h.ptr())) {
    JsonValue::Array items;
    for (nb::handle item : nb::borrow<nb::sequence>(h)) items.push_back(to_json(item, field, depth + 1));
    return JsonValue::make_array(std::move(items));
  }
  if (PyDict_Check(h.ptr())) {
    JsonValue::Object members;
    for (auto kv : nb::borrow<nb::dict>(h)) {
      if (!PyUnicode_Check(kv.first.ptr())) {
        throw msprobe::InvalidInput(std::string("argument: \"") + field + "\" has a non-string dict key");
      }
      members.emplace_back(nb::cast<std::string>(kv.first), to_json(kv.second, field, depth + 1));
    }
    return JsonValue::make_object(std::move(members));
  }
  throw msprobe::InvalidInput(std::string("argument: \"") + field +
                              "\" must be built from lists, strings and " +
                              "integers, got a value of Python type " + py_type_name(h));
}

std::optional<std::string> string_arg(const nb::object& o, const char* field) {
  if (o.is_none()) return std::nullopt;
  if (!PyUnicode_Check(o.ptr())) {
    msprobe::JsonValue v;
    std::string got;
    try {
      v = to_json(o, field);
      got = v.is_int() ? std::to_string(v.as_int()) : v.type_name();
    } catch (const msprobe::InvalidInput&) {
      got = "a value of Python type " + py_type_name(o);
    }
    throw msprobe::InvalidInput(std::string("argument: \"") + field + "\" must be a string, got " + got);
  }
  return to_json(o, field).as_string();
}

msprobe::Framework framework_arg(const std::string& fw) {
  if (fw == "pytorch") return msprobe::Framework::kPyTorch;
  if (fw == "mindspore") return msprobe::Framework::kMindSpore;
  throw msprobe::InvalidInput("argument: \"framework\" must be one of pytorch, mindspore, got \"" + fw +
                              "\"");
}

msprobe::ConfigOverrides overrides(const nb::object& task, const nb::object& dump_path,
                                   const nb::object& level, const nb::object& step) {
  msprobe::ConfigOverrides ov;
  ov.task = string_arg(task, "task");
  ov.dump_path = string_arg(dump_path, "dump_path");
  ov.level = string_arg(level, "level");
  if (!step.is_none()) ov.step = to_json(step, "step");
  return ov;
}

template <class T>
nb::list to_list(const std::vector<T>& v) {
  nb::list out;
  for (const auto& x : v) out.append(nb::cast(x));
  return out;
}

nb::dict as_dict(const msprobe::DumpConfig& c) {
  nb::dict d;
  d["task"] = c.task;
  d["dump_path"] = c.dump_path;
  d["rank"] = to_list(c.rank);
  d["step"] = to_list(c.step);
  d["level"] = c.level;
  d["enable_dataloader"] = c.enable_dataloader;
  d["async_dump"] = c.async_dump;
  d["scope"] = to_list(c.scope);
  d["list"] = to_list(c.list);
  d["data_mode"] = to_list(c.data_mode);
  d["summary_mode"] = c.summary_mode;
  d["summary_mode_list"] = to_list(c.summary_mode_list);
  d["file_format"] = c.file_format;
  d["overflow_nums"] = c.overflow_nums;
  d["check_mode"] = c.check_mode;
  nb::dict fb;
  const auto& f = c.free_benchmark;
  fb["scope"] = to_list(f.scope);
  fb["list"] = to_list(f.list);
  fb["fuzz_device"] = f.fuzz_device;
  fb["pert_mode"] = f.pert_mode;
  fb["handler_type"] = f.handler_type;
  fb["fuzz_level"] = f.fuzz_level;
  fb["fuzz_stage"] = f.fuzz_stage;
  fb["if_preheat"] = f.if_preheat;
  fb["preheat_step"] = f.preheat_step;
  fb["max_sample"] = f.max_sample;
  d["free_benchmark"] = fb;
  nb::dict ru;
  ru["white_list"] = to_list(c.run_ut.white_list);
  ru["black_list"] = to_list(c.run_ut.black_list);
  ru["error_data_path"] = c.run_ut.error_data_path;
  d["run_ut"] = ru;
  nb::dict gp;
  gp["grad_level"] = c.grad_probe.grad_level;
  gp["param_list"] = to_list(c.grad_probe.param_list);
  gp["bounds"] = to_list(c.grad_probe.bounds);
  d["grad_probe"] = gp;
  return d;
}

}  // namespace

void bind_config(nb::module_& m) {
  using namespace msprobe;

  nb::class_<FreeBenchmarkConfig>(m, "FreeBenchmarkConfig", "The free_benchmark section (read-only).")
      .def_ro("scope", &FreeBenchmarkConfig::scope)
      .def_ro("list", &FreeBenchmarkConfig::list)
      .def_ro("fuzz_device", &FreeBenchmarkConfig::fuzz_device)
      .def_ro("pert_mode", &FreeBenchmarkConfig::pert_mode)
      .def_ro("handler_type", &FreeBenchmarkConfig::handler_type)
      .def_ro("fuzz_level", &FreeBenchmarkConfig::fuzz_level)
      .def_ro("fuzz_stage", &FreeBenchmarkConfig::fuzz_stage)
      .def_ro("if_preheat", &FreeBenchmarkConfig::if_preheat)
      .def_ro("ignored_note", &FreeBenchmarkConfig::ignored_note)
      .def_ro("preheat_step", &FreeBenchmarkConfig::preheat_step)
      .def_ro("max_sample", &FreeBenchmarkConfig::max_sample);

  nb::class_<RunUtConfig>(m, "RunUtConfig", "The run_ut section (read-only).")
      .def_ro("white_list", &RunUtConfig::white_list)
      .def_ro("black_list", &RunUtConfig::black_list)
      .def_ro("error_data_path", &RunUtConfig::error_data_path);

  nb::class_<GradProbeConfig>(m, "GradProbeConfig", "The grad_probe section (read-only).")
      .def_ro("grad_level", &GradProbeConfig::grad_level)
      .def_ro("param_list", &GradProbeConfig::param_list)
      .def_ro("bounds", &GradProbeConfig::bounds);

  nb::class_<DumpConfig>(m, "DumpConfig",
                         "A validated config.json (read-only). Lists are returned as new Python lists.")
      .def_ro("task", &DumpConfig::task)
      .def_ro("dump_path", &DumpConfig::dump_path)
      .def_ro("rank", &DumpConfig::rank, "Expanded, de-duplicated, sorted; [] = all ranks.")
      .def_ro("step", &DumpConfig::step, "Expanded, de-duplicated, sorted; [] = all steps.")
      .def_ro("level", &DumpConfig::level)
      .def_ro("enable_dataloader", &DumpConfig::enable_dataloader)
      .def_ro("async_dump", &DumpConfig::async_dump)
      .def_ro("scope", &DumpConfig::scope)
      .def_ro("list", &DumpConfig::list)
      .def_ro("data_mode", &DumpConfig::data_mode)
      .def_ro("summary_mode", &DumpConfig::summary_mode)
      .def_ro("summary_mode_list", &DumpConfig::summary_mode_list,
              "MindSpore list form of summary_mode; [] when the string form was used.")
      .def_ro("file_format", &DumpConfig::file_format)
      .def_ro("overflow_nums", &DumpConfig::overflow_nums)
      .def_ro("check_mode", &DumpConfig::check_mode)
      .def_ro("free_benchmark", &DumpConfig::free_benchmark)
      .def_ro("run_ut", &DumpConfig::run_ut)
      .def_ro("grad_probe", &DumpConfig::grad_probe)
      .def("as_dict", &as_dict, "Every field as a plain dict (sections as nested dicts).")
      .def("__repr__", [](const DumpConfig& c) {
        return "DumpConfig(task=" + c.task + ", level=" + c.level + ", dump_path=" + c.dump_path + ")";
      });

  m.def(
      "load_config",
      [](const std::string& path, const std::string& framework, nb::object task, nb::object dump_path,
         nb::object level, nb::object step) {
        Framework fw = framework_arg(framework);
        ConfigOverrides ov = overrides(task, dump_path, level, step);
        return load_dump_config(path, fw, ov);
      },
      "path"_a, "framework"_a = "pytorch", "task"_a = nb::none(), "dump_path"_a = nb::none(),
      "level"_a = nb::none(), "step"_a = nb::none(),
      "Loads and validates a config.json. Arguments other than path/framework override the file "
      "(PrecisionDebugger constructor semantics). Raises ConfigError or MsprobeFileError.");

  m.def(
      "parse_config_text",
      [](const std::string& text, const std::string& origin, const std::string& framework, nb::object task,
         nb::object dump_path, nb::object level, nb::object step) {
        Framework fw = framework_arg(framework);
        ConfigOverrides ov = overrides(task, dump_path, level, step);
        JsonValue doc = parse_json(text, origin);
        return parse_dump_config(doc, fw, ov, origin);
      },
      "text"_a, "origin"_a = "config.json", "framework"_a = "pytorch", "task"_a = nb::none(),
      "dump_path"_a = nb::none(), "level"_a = nb::none(), "step"_a = nb::none(),
      "Like load_config, for JSON text; origin names it in messages.");
}
