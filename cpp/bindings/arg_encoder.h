// Renders Python call arguments, results and gradients (nested lists, tuples, dicts, scalars,
// slices, tensors) as dump.json values, computing tensor statistics and queueing tensor files.
#pragma once
#include <nanobind/nanobind.h>

#include <string>
#include <unordered_map>
#include <vector>

#include "msprobe/dump/deferred_values.h"
#include "msprobe/dump/dump_session.h"
#include "msprobe/dump/overflow_sink.h"
#include "msprobe/dump/tensor_output.h"
#include "msprobe/format/json_writer.h"
#include "tensor_from_python.h"

namespace nb = nanobind;

namespace msprobe {

// Python types the encoder recognises; set by the framework adapter.
struct PythonTypes {
  nb::object size_type;      // torch.Size (a tuple subclass rendered as {"type": "torch.Size"})
  nb::object numpy_generic;  // numpy.generic scalars
  nb::object fallback;       // fallback(value, kwarg_name) -> dict | None for other objects
  nb::object to_host;        // to_host(tensor) -> CPU tensor, for device tensors
  // Deferred reads (MindSpore): a value of type `deferred` is read later, by resolve(value)
  // -> what the encoder reads, so that recording a tensor does not wait for its kernel.
  nb::object deferred;
  nb::object resolve;
  // Device path (device_path.h): device_record(tensor) -> handle | None starts the statistics
  // (or the host copy) of an accelerator tensor and returns a handle that is deferred like the
  // values above; prepare(new_values, force) -> int says how many of the oldest deferred values
  // resolve() can read without waiting (all when force); extremes(handle) -> bytes | None gives
  // the four extremes of external_stats.h when Max or Min came back inf/NaN.
  nb::object device_record;
  nb::object prepare;
  nb::object extremes;
  // rescaled(handle, scale) -> bytes | None: mean and norm of the values divided by `scale`
  // (float64 magnitudes beyond 1e+-150, external_stats_need_rescale), not yet multiplied back.
  nb::object rescaled;
  bool device_all = false;  // testing aid: CPU tensors take the device path too
  // Tensors with a name (the model's parameters and buffers, the model's inputs), by the memory
  // they start at and their element count, so that a view of the same elements (input_ids.view)
  // has the name too; the tensors are held so that their memory stays theirs. An input row
  // holding one is noted in tensor_names.json.
  struct NamedTensors {
    std::unordered_map<const void*, std::vector<std::pair<int64_t, std::string>>>
        names;  // data -> (numel, name)
    std::vector<nb::object> held;
  };
  NamedTensors parameters, model_inputs;
  const std::string* name_of(const TensorView& v) const {
    for (const NamedTensors* n : {&model_inputs, &parameters}) {
      auto it = n->names.find(v.data);
      if (it == n->names.end()) continue;
      for (const auto& [numel, name] : it->second)
        if (numel == v.numel()) return &name;
    }
    return nullptr;
  }
};

// A tensor an overflow_check entry holds until it is decided (overflow_sink.h).
struct PyHeldTensor : HeldTensor {
  PyHeldTensor(nb::object t, std::string stem, bool requires_grad)
      : HeldTensor(std::move(stem), requires_grad), tensor(std::move(t)) {}
  nb::object tensor;  // a value the core can view (a host copy for device tensors)
};

class ArgEncoder {
 public:
  ArgEncoder(DumpSession& session, const PythonTypes& types) : s_(session), types_(types), out_(session) {}
  // Forgets the tensors saved in the current step (their files belong to that step).
  void clear_saved() { out_.end_step(); }
  // Writes `value`; `entry` and `category` ("input", "kwargs", "output", "parameters") build
  // tensor file names "{entry}.{category}.{path}{ext}"; `path` is the index/key path so far.
  void value(JsonWriter& w, nb::handle v, const std::string& entry, const char* category, std::string& path,
             int depth, const char* kwarg_name);
  // Writes a tensor whose file is named exactly `data_name_stem` + extension (parameters_grad).
  void tensor_named(JsonWriter& w, nb::handle v, const std::string& data_name_stem);

  // overflow_check: see TensorOutput::set_target.
  void set_target(SinkPtr sink, bool output_side) { out_.set_target(std::move(sink), output_side); }
  // Writes the files of the tensors an overflowing entry held.
  void save_held(OverflowSink& sink);

  // Deferred values written as markers and not rendered yet.
  size_t deferred_count() const { return deferred_.size(); }
  // Seconds since the oldest unrendered deferred value was written (0 when none).
  double deferred_age_s() const { return deferred_.age_s(); }
  // Reads and renders the deferred values that are ready (all of them when `force`), in the
  // order written: (id, JSON text).
  std::vector<std::pair<uint64_t, std::string>> render_deferred(bool force = true);

 private:
  // A deferred value's Python side; device records keep the tensor as seen when recorded.
  struct PyDeferred : DeferredPayload {
    explicit PyDeferred(nb::object v) : value(std::move(v)) {}
    nb::object value;
    bool device = false;
    DType dtype = DType::kFloat32;
    std::vector<int64_t> shape;
    bool requires_grad = false;
    TensorIdentity identity;
  };
  static PyDeferred& payload(DeferredValue& d) { return static_cast<PyDeferred&>(*d.payload); }

  void tensor(JsonWriter& w, nb::handle v, const std::string& stem);
  // Notes the row "{entry}.input.{path}" in tensor_names.json when `pt` is a named tensor.
  void note_name(const PyTensor& pt, const std::string& entry, const std::string& path);
  bool view_tensor(nb::handle v, PyTensor& pt);
  void tensor_view(JsonWriter& w, nb::handle v, PyTensor& pt, const std::string& stem);
  void plain(JsonWriter& w, nb::handle v, int depth);  // JSON-able Python data from fallback
  bool is_deferred(PyObject* o) const {
    return types_.deferred.is_valid() && Py_TYPE(o) == (PyTypeObject*)types_.deferred.ptr();
  }
  DeferredValue& defer(JsonWriter& w, nb::handle v, std::string stem);
  // The statistics and file of a host-readable tensor; obj: the object whose memory pt views
  // (kept by overflow_check's sink); `id` recognises a tensor saved before (tensor_dedup.h).
  void host_record(JsonWriter& w, nb::handle obj, PyTensor& pt, const std::string& stem,
                   const TensorIdentity* id);
  // The identity of a tensor for hard links, when they are made (else version -1).
  TensorIdentity identity_of(nb::handle v, const PyTensor& pt) const;
  void defer_device(JsonWriter& w, nb::handle v, nb::object handle, const PyTensor& pt,
                    const std::string& stem);
  void render_one(JsonWriter& w, DeferredValue& d);
  // Statistics handed back as numbers (external_stats.h).
  void external_record(JsonWriter& w, PyDeferred& d, nb::handle numbers, DType dtype,
                       const std::vector<int64_t>& shape, bool requires_grad);

  DumpSession& s_;
  const PythonTypes& types_;
  TensorOutput out_;
  DeferredValues deferred_;
};

}  // namespace msprobe
