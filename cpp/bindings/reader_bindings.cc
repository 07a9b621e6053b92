// Bindings of the dump reader (msprobe._core.reader): what run_ut, the CLI and tests need.
//   TensorStore(dir).load(name) -> (array, requires_grad)   zero copy (DLPack / buffer protocol)
//   TensorStore(dir).resolve(name) -> confined path          for torch.load fall-backs
//   read_dump_entries(path) -> (header, [(name, record)], note)
//   read_stack_json(path) / read_construct_json(path) -> (contents, note)
//   PtUnsupported: a .pt file the C++ reader does not read (MsprobeFileError subclass)
#include <Python.h>
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/unordered_map.h>
#include <nanobind/stl/vector.h>

#include <memory>
#include <string>
#include <vector>

#include "json_to_python.h"
#include "msprobe/format/pt_reader.h"
#include "msprobe/reader/dump_json_reader.h"
#include "msprobe/reader/side_files.h"
#include "msprobe/reader/tensor_store.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace {

PyObject* g_pt_unsupported = nullptr;

nb::dlpack::dtype dlpack_dtype(msprobe::DType t) {
  using msprobe::DType;
  using Code = nb::dlpack::dtype_code;
  const uint8_t bits = (uint8_t)(msprobe::dtype_size(t) * 8);
  switch (t) {
    case DType::kBool: return {(uint8_t)Code::Bool, 8, 1};
    case DType::kUInt8: return {(uint8_t)Code::UInt, 8, 1};
    case DType::kInt8:
    case DType::kInt16:
    case DType::kInt32:
    case DType::kInt64: return {(uint8_t)Code::Int, bits, 1};
    case DType::kBFloat16: return {(uint8_t)Code::Bfloat, 16, 1};
    case DType::kComplex64:
    case DType::kComplex128: return {(uint8_t)Code::Complex, bits, 1};
    default: return {(uint8_t)Code::Float, bits, 1};
  }
}

// A writable view of the (copy-on-write) mapping; the capsule keeps the mapping alive.
nb::object to_array(const msprobe::reader::LoadedTensor& t) {
  const msprobe::TensorView v = t.view();
  std::vector<size_t> shape(v.shape.begin(), v.shape.end());
  auto* keep = new std::shared_ptr<void>(t.keepalive);
  nb::capsule owner(keep, [](void* p) noexcept { delete static_cast<std::shared_ptr<void>*>(p); });
  nb::ndarray<nb::array_api> arr(const_cast<void*>(v.data), shape.size(), shape.data(), owner,
                                 t.strides.data(), dlpack_dtype(t.dtype));
  return nb::cast(arr);
}

nb::object note_message(const msprobe::reader::RepairNote& n) {
  return n.torn ? nb::object(nb::str(n.message.c_str())) : nb::none();
}

}  // namespace

void bind_reader(nb::module_& root) {
  using namespace msprobe::reader;
  nb::module_ m = root.def_submodule("reader", "The dump reader: dump.json, side files, tensors");

  g_pt_unsupported = PyErr_NewExceptionWithDoc(
      "msprobe._core.reader.PtUnsupported",
      "A .pt file the C++ reader does not read (not a single tensor, legacy format, compressed); "
      "torch.load(weights_only=True) may still read it.",
      root.attr("MsprobeFileError").ptr(), nullptr);
  if (!g_pt_unsupported) throw nb::python_error();
  m.attr("PtUnsupported") = nb::handle(g_pt_unsupported);
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const msprobe::PtUnsupported& e) {
      PyErr_SetString(g_pt_unsupported, e.what());
    }
  });

  nb::class_<TensorStore>(m, "TensorStore", "The tensor files of a dump folder, confined to it.")
      .def(nb::init<std::string>(), "dump_tensor_data_dir"_a)
      .def_prop_ro("dir", &TensorStore::dir)
      .def("resolve", &TensorStore::resolve, "data_name"_a)
      .def(
          "load",
          [](const TensorStore& s, const std::string& name) {
            LoadedTensor t;
            {
              nb::gil_scoped_release release;
              t = s.load(name);
            }
            return nb::make_tuple(to_array(t), t.requires_grad);
          },
          "data_name"_a,
          "(array, requires_grad): the tensor as a zero-copy array (DLPack and buffer protocol; "
          "torch.from_dlpack / numpy.asarray), its pages private to this process.");

  m.def(
      "read_dump_entries",
      [](const std::string& path) {
        std::unique_ptr<DumpJsonReader> r;
        std::vector<std::pair<std::string, msprobe::JsonValue>> entries;
        {
          nb::gil_scoped_release release;
          r = std::make_unique<DumpJsonReader>(path);
          r->for_each_entry([&](std::string_view name, const msprobe::JsonValue& rec) {
            entries.emplace_back(std::string(name), rec);
          });
        }
        nb::dict header;
        header["task"] = r->header().task;
        header["level"] = r->header().level;
        header["framework"] = r->header().framework;
        header["dump_data_dir"] = msprobe::json_to_python(r->header().dump_data_dir);
        header["folder"] = r->header().folder;
        header["has_real_data"] = r->header().has_real_data();
        nb::list out;
        for (const auto& e : entries) out.append(nb::make_tuple(e.first, msprobe::json_to_python(e.second)));
        return nb::make_tuple(header, out, note_message(r->note()));
      },
      "path"_a, "(header dict, [(name, record)], note or None): every complete entry of dump.json.");
  m.def(
      "read_stack_json",
      [](const std::string& path) {
        RepairNote note;
        auto stacks = read_stack_json(path, &note);
        return nb::make_tuple(nb::cast(stacks), note_message(note));
      },
      "path"_a, "({entry name: [stack lines]}, note or None)");
  m.def(
      "read_construct_json",
      [](const std::string& path) {
        RepairNote note;
        auto pairs = read_construct_json(path, &note);
        return nb::make_tuple(nb::cast(pairs), note_message(note));
      },
      "path"_a, "([(child, parent or '')], note or None)");
}
