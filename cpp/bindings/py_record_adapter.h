// RecordAdapter (msprobe/dump/record_adapter.h) for Python objects: ValueRef is a borrowed
// PyObject*; values are encoded by ArgEncoder, the stack is read from the interpreter's frames.
#pragma once
#include <nanobind/nanobind.h>

#include <string>
#include <unordered_map>
#include <vector>

#include "arg_encoder.h"
#include "msprobe/dump/record_adapter.h"

namespace nb = nanobind;

namespace msprobe {

class PyRecordAdapter : public RecordAdapter {
 public:
  PyRecordAdapter(DumpSession& session, const PythonTypes& types)
      : session_(session), encoder_(session, types) {}

  static ValueRef ref(nb::handle h) { return h.ptr(); }
  // Frames of files under this prefix (the probe's own) are left out of stacks.
  void set_internal_prefix(std::string prefix) { internal_prefix_ = std::move(prefix); }
  // report(level, message): overflow_check's lines for the user (None: silent).
  void set_report(nb::object report) { report_ = std::move(report); }

  void write_list(JsonWriter& w, ValueRef args, const std::string& entry, const char* category) override;
  void write_kwargs(JsonWriter& w, ValueRef kwargs, const std::string& entry) override;
  void write_result(JsonWriter& w, ValueRef result, const std::string& entry, const char* category) override;
  void write_parameters(JsonWriter& w, ValueRef params, const std::string& entry) override;
  bool has_parameters(ValueRef params) override;
  void write_tensor(JsonWriter& w, ValueRef tensor, const std::string& stem) override {
    encoder_.tensor_named(w, handle(tensor), stem);
  }
  void set_target(SinkPtr sink, bool output_side) override {
    encoder_.set_target(std::move(sink), output_side);
  }
  void save_held(OverflowSink& sink) override { encoder_.save_held(sink); }
  size_t deferred_count() const override { return encoder_.deferred_count(); }
  double deferred_age_s() const override { return encoder_.deferred_age_s(); }
  std::vector<std::pair<uint64_t, std::string>> render_deferred(bool force) override {
    return encoder_.render_deferred(force);
  }
  void end_step() override { encoder_.clear_saved(); }
  std::vector<uint32_t> capture_stack() override;
  void report(const char* level, const std::string& message) override;

 private:
  static nb::handle handle(ValueRef v) { return nb::handle((PyObject*)v); }
  // Writes the items of a dict as an object: key -> value, skipping None values when asked.
  void write_dict(JsonWriter& w, nb::handle d, const std::string& entry, const char* category, bool skip_none,
                  bool as_kwargs);

  DumpSession& session_;
  ArgEncoder encoder_;
  std::string internal_prefix_;
  nb::object report_;

  // Frames are keyed by (code object, line); the code objects are kept alive so that their
  // addresses stay unique.
  struct FrameKey {
    PyObject* code;
    int line;
    bool operator==(const FrameKey& o) const { return code == o.code && line == o.line; }
  };
  struct FrameKeyHash {
    size_t operator()(const FrameKey& k) const {
      return std::hash<const void*>()(k.code) ^ ((size_t)k.line * 0x9e3779b97f4a7c15ull);
    }
  };
  static constexpr uint32_t kInternalFrame = 0xffffffffu;
  std::unordered_map<FrameKey, uint32_t, FrameKeyHash> frame_ids_;
  std::vector<nb::object> code_refs_;
};

}  // namespace msprobe
