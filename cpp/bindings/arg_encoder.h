// Renders Python call arguments, results and gradients (nested lists, tuples, dicts, scalars,
// slices, tensors) as dump.json values, computing tensor statistics and queueing tensor files.
#pragma once
#include <nanobind/nanobind.h>

#include <chrono>
#include <string>
#include <unordered_map>
#include <vector>

#include "msprobe/dump/dump_session.h"
#include "msprobe/format/json_writer.h"
#include "overflow_sink.h"
#include "tensor_from_python.h"

namespace nb = nanobind;

namespace msprobe {

// Python types the encoder recognises; set by the framework adapter.
struct PythonTypes {
  nb::object size_type;       // torch.Size (a tuple subclass rendered as {"type": "torch.Size"})
  nb::object numpy_generic;   // numpy.generic scalars
  nb::object fallback;        // fallback(value, kwarg_name) -> dict | None for other objects
  nb::object to_host;         // to_host(tensor) -> CPU tensor, for device tensors
  // Deferred reads (MindSpore): a value of type `deferred` is read later, by resolve(value)
  // -> what the encoder reads, so that recording a tensor does not wait for its kernel.
  nb::object deferred;
  nb::object resolve;
};

// A deferred value's JSON text: written as the marker "\x01{id}\x01" (JsonWriter escapes control
// characters in strings, so the byte never occurs otherwise) and rendered later at `depth`.
constexpr char kDeferredMark = '\x01';


class ArgEncoder {
 public:
  // Forgets the tensors saved in the current step (their files belong to that step).
  void clear_saved() { saved_.clear(); }
  ArgEncoder(DumpSession& session, const PythonTypes& types) : s_(session), types_(types) {}
  // Writes `value`; `entry` and `category` ("input", "kwargs", "output", "parameters") build
  // tensor file names "{entry}.{category}.{path}{ext}"; `path` is the index/key path so far.
  void value(JsonWriter& w, nb::handle v, const std::string& entry, const char* category,
             std::string& path, int depth, const char* kwarg_name);
  // Writes a tensor whose file is named exactly `data_name_stem` + extension (parameters_grad).
  void tensor_named(JsonWriter& w, nb::handle v, const std::string& data_name_stem);

  // overflow_check: the entry part written next marks `sink` (inputs or outputs side) when a
  // tensor holds inf/NaN, and its tensors are held there instead of saved (nullptr: none).
  void set_target(SinkPtr sink, bool output_side) {
    sink_ = std::move(sink);
    sink_output_ = output_side;
  }
  // Writes the files of the tensors an overflowing entry held.
  void save_held(OverflowSink& sink);

  // Deferred values written as markers and not rendered yet.
  size_t deferred_count() const { return deferred_.size(); }
  // Seconds since the oldest unrendered deferred value was written (0 when none).
  double deferred_age_s() const;
  // Reads and renders every deferred value, in the order written: (id, JSON text).
  std::vector<std::pair<uint64_t, std::string>> render_deferred();

 private:
  void tensor(JsonWriter& w, nb::handle v, const std::string& stem);
  bool view_tensor(nb::handle v, PyTensor& pt);
  void tensor_view(JsonWriter& w, nb::handle v, PyTensor& pt, const std::string& stem);
  void plain(JsonWriter& w, nb::handle v, int depth);  // JSON-able Python data from fallback
  bool is_deferred(PyObject* o) const {
    return types_.deferred.is_valid() && Py_TYPE(o) == (PyTypeObject*)types_.deferred.ptr();
  }
  void defer(JsonWriter& w, nb::handle v, std::string stem);

  struct Deferred {
    uint64_t id;
    nb::object value;
    std::string stem;
    int depth;
    SinkPtr sink;  // overflow_check: the entry part it belongs to
    bool output_side;
  };
  std::vector<Deferred> deferred_;
  uint64_t next_deferred_id_ = 1;
  std::chrono::steady_clock::time_point oldest_deferred_;

  // Tensor task: a tensor object saved again unchanged (same object, same version counter,
  // same bytes by CRC-32) is hard-linked to its first file instead of written twice.
  struct SavedTensor {
    nb::object weak;  // weak reference to the tensor object
    int64_t version;
    uint32_t crc;
    const void* data;
    DType dtype;
    std::vector<int64_t> shape, strides;
    std::string data_name;
  };
  bool save_or_link(nb::handle v, const PyTensor& pt, uint32_t crc, const std::string& data_name,
                    std::string& contents);

  DumpSession& s_;
  const PythonTypes& types_;
  SinkPtr sink_;
  bool sink_output_ = false;
  std::unordered_map<PyObject*, SavedTensor> saved_;
};

}  // namespace msprobe
