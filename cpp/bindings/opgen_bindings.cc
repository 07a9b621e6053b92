// Bindings of op_generate (msprobe._core.opgen): the whole command in C++, typed result.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>

#include <string>

#include "msprobe/jobs/op_generate.h"
#include "record_class.h"

namespace nb = nanobind;
using namespace nb::literals;

void bind_opgen(nb::module_& root) {
  using namespace msprobe::opgen;
  nb::module_ m = root.def_submodule("opgen", "op_generate: one API of a dump as a standalone script");
  msprobe::RecordClass<OpGenerateResult>(m, "OpGenerateResult", "What op_generate wrote.")
      .ro("script_path", &OpGenerateResult::script_path)
      .ro("api_name", &OpGenerateResult::api_name)
      .ro("api_entry", &OpGenerateResult::api_entry)
      .ro("extract_api_path", &OpGenerateResult::extract_api_path)
      .ro("extracted", &OpGenerateResult::extracted)
      .ro("tensor_data", &OpGenerateResult::tensor_data)
      .ro("standard", &OpGenerateResult::standard);
  m.def(
      "run_op_generate",
      [](const std::string& config_path, const std::string& output_dir, const std::string& template_path) {
        nb::gil_scoped_release release;
        return run_op_generate(config_path, output_dir, template_path);
      },
      "config_path"_a, "output_dir"_a, "template_path"_a,
      "Checks config_op.json, extracts the API's entries and writes <output_dir>/<entry>.py; user errors "
      "raise ConfigError or MsprobeFileError with one line.");
}
