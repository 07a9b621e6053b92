// A host-readable tensor into the dump: its dump.json record (statistics, file name) and its
// file, which is written, hard-linked to an identical earlier one (tensor_dedup.h), or held by
// an overflow_check sink until its entry is decided.
#pragma once
#include <functional>
#include <memory>
#include <string>

#include "msprobe/dump/dump_session.h"
#include "msprobe/dump/overflow_sink.h"
#include "msprobe/dump/tensor_dedup.h"
#include "msprobe/format/json_writer.h"

namespace msprobe {

// A tensor file's name without extension: "{entry}.{category}.{path}", e.g.
// "Torch.add.0.forward.input.0" or "Module.fc.Linear.forward.0.kwargs.bias"; `path` is the
// index/key path inside the argument (parameters_grad names its files itself).
std::string tensor_file_stem(const std::string& entry, const char* category, const std::string& path);

// The file contents of a tensor: .pt for PyTorch (crc: CRC-32 of the data), .npy for MindSpore.
std::string tensor_file_contents(const TensorView& t, const std::string& stem, bool requires_grad,
                                 Framework framework, uint32_t* crc);

class TensorOutput {
 public:
  explicit TensorOutput(DumpSession& session) : s_(session) {}

  // overflow_check: the tensors written next mark `sink` (its inputs or outputs side) when they
  // hold inf/NaN, and are held there (nullptr: none).
  void set_target(SinkPtr sink, bool output_side) {
    sink_ = std::move(sink);
    output_side_ = output_side;
  }
  const SinkPtr& sink() const { return sink_; }
  bool output_side() const { return output_side_; }

  // Whether saved tensors are recognised for hard links (PyTorch tensor task).
  bool links_files() const {
    return s_.tensor_task() && s_.record_options().framework == Framework::kPyTorch;
  }
  // Writes the record of `t` named after `stem`; `id` (may be null) recognises a tensor saved
  // before; `hold` gives what an overflow_check sink keeps of it.
  void write(JsonWriter& w, const TensorView& t, bool requires_grad, const std::string& stem,
             const TensorIdentity* id, const std::function<std::unique_ptr<HeldTensor>()>& hold);
  // Writes the file of a tensor an overflowing entry held.
  void save_held(const TensorView& t, const HeldTensor& h);
  // The step ended: its files are not linked to any more.
  void end_step() { dedup_.clear(); }

 private:
  DumpSession& s_;
  TensorDedup dedup_;
  SinkPtr sink_;
  bool output_side_ = false;
};

}  // namespace msprobe
