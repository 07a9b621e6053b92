// What the record builder (record_builder.h) asks of a framework adapter: the bindings implement
// it for Python objects. The core never looks inside a value; it only says where in the entry a
// value goes and under which tensor file names.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "msprobe/dump/overflow_sink.h"
#include "msprobe/format/json_writer.h"

namespace msprobe {

// An adapter's value (for the bindings a borrowed PyObject*), opaque to the core.
using ValueRef = const void*;

class RecordAdapter {
 public:
  virtual ~RecordAdapter() = default;

  // Values, written at the writer's position. `entry` and `category` ("input", "kwargs",
  // "output", "parameters") name tensor files "{entry}.{category}.{path}{ext}".
  // A sequence of arguments as a JSON list (nothing: []).
  virtual void write_list(JsonWriter& w, ValueRef args, const std::string& entry, const char* category) = 0;
  // Keyword arguments as a JSON object (nothing: {}).
  virtual void write_kwargs(JsonWriter& w, ValueRef kwargs, const std::string& entry) = 0;
  // A call's result as a JSON list: a tuple or list item by item, anything else as one item.
  virtual void write_result(JsonWriter& w, ValueRef result, const std::string& entry,
                            const char* category) = 0;
  // A module's direct parameters (name -> tensor) as a JSON object.
  virtual void write_parameters(JsonWriter& w, ValueRef params, const std::string& entry) = 0;
  virtual bool has_parameters(ValueRef params) = 0;
  // One tensor whose file is named exactly `stem` + extension (a parameter's gradient).
  virtual void write_tensor(JsonWriter& w, ValueRef tensor, const std::string& stem) = 0;

  // overflow_check: the values written next mark `sink` (its inputs or outputs side) when a
  // tensor holds inf/NaN and are held there instead of saved (nullptr: none).
  virtual void set_target(SinkPtr sink, bool output_side) = 0;
  // Writes the files of the tensors an overflowing entry held.
  virtual void save_held(OverflowSink& sink) = 0;

  // Deferred values (deferred_text.h) written as markers and not rendered yet.
  virtual size_t deferred_count() const = 0;
  // Seconds since the oldest of them was written (0 when none).
  virtual double deferred_age_s() const = 0;
  // Reads and renders those that are ready (all when `force`), in the order written.
  virtual std::vector<std::pair<uint64_t, std::string>> render_deferred(bool force) = 0;

  // The step ended: tensors saved in it are not linked to any more (tensor_dedup.h).
  virtual void end_step() = 0;
  // The caller's stack as interned frame ids (DumpSession::intern_frame), innermost first.
  virtual std::vector<uint32_t> capture_stack() = 0;
  // overflow_check: a line for the user (level "WARNING" or "INFO").
  virtual void report(const char* level, const std::string& message) = 0;
};

}  // namespace msprobe
