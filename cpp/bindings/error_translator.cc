// The module's user-error exception classes and the one translator from the core's error model
// (msprobe/base/error.h) to them. Registered first (module.cc), so the classes exist for every
// later binding and more specific translators registered later (reader's PtUnsupported) win.
//   msprobe._core.ConfigError      (ValueError)            <- ErrorCode::kInvalidInput
//   msprobe._core.MsprobeFileError (OSError, ValueError)   <- ErrorCode::kFile
// MsprobeFileError derives from both: a missing or unreadable file is an OSError to Python
// code, and a malformed file is a bad value, as json.JSONDecodeError (a ValueError) is.
#include <nanobind/nanobind.h>

#include "msprobe/base/error.h"

namespace nb = nanobind;

namespace {

PyObject* g_config_error = nullptr;
PyObject* g_file_error = nullptr;

PyObject* python_type_of(msprobe::ErrorCode code) {
  switch (code) {
    case msprobe::ErrorCode::kInvalidInput: return g_config_error;
    case msprobe::ErrorCode::kFile: return g_file_error;
  }
  return g_config_error;
}

void translate_errors(const std::exception_ptr& p, void*) {
  try {
    std::rethrow_exception(p);
  } catch (const msprobe::Error& e) {
    PyErr_SetString(python_type_of(e.code()), e.what());
  }
}

}  // namespace

void bind_errors(nb::module_& m) {
  g_config_error = PyErr_NewExceptionWithDoc("msprobe._core.ConfigError",
                                             "An invalid config.json value or argument; the message is one "
                                             "line naming the field and what is allowed.",
                                             PyExc_ValueError, nullptr);
  nb::object bases = nb::make_tuple(nb::handle(PyExc_OSError), nb::handle(PyExc_ValueError));
  g_file_error = PyErr_NewExceptionWithDoc(
      "msprobe._core.MsprobeFileError",
      "A file that cannot be used: missing, a directory, a link, wrong suffix, unreadable or malformed. "
      "The message names the path (and the line and column for malformed JSON).",
      bases.ptr(), nullptr);
  if (!g_config_error || !g_file_error) throw nb::python_error();
  m.attr("ConfigError") = nb::handle(g_config_error);
  m.attr("MsprobeFileError") = nb::handle(g_file_error);
  nb::register_exception_translator(translate_errors);
}
