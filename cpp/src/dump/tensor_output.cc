#include "msprobe/dump/tensor_output.h"

#include "msprobe/dump/overflow_monitor.h"
#include "msprobe/dump/tensor_record.h"
#include "msprobe/format/npy_writer.h"
#include "msprobe/format/pt_writer.h"
#include "msprobe/stats/tensor_stats.h"

namespace msprobe {

std::string tensor_file_stem(const std::string& entry, const char* category, const std::string& path) {
  return entry + "." + category + "." + path;
}

std::string tensor_file_contents(const TensorView& t, const std::string& stem, bool requires_grad,
                                 Framework framework, uint32_t* crc) {
  return framework == Framework::kPyTorch ? encode_pt(t, stem, requires_grad, crc) : encode_npy(t);
}

void TensorOutput::write(JsonWriter& w, const TensorView& t, bool requires_grad, const std::string& stem,
                         const TensorIdentity* id, const std::function<std::unique_ptr<HeldTensor>()>& hold) {
  const TensorRecordOptions& opt = s_.record_options();
  TensorStats stats;
  if (t.data == nullptr && t.numel() > 0) {
    // No readable memory (meta / fake tensors): shape and dtype only, statistics null.
    write_tensor_record_with_stats(w, t.dtype, t.shape, stats, requires_grad, std::string(), opt);
    return;
  }
  std::string file_contents;
  const bool save = s_.tensor_task();
  // overflow_check names every tensor's file; the files are written if the entry overflows.
  const std::string data_name = save || s_.overflow_task() ? stem + s_.tensor_extension() : std::string();
  stats = compute_stats(t, opt.want_crc);
  if (sink_) {
    if (stats_overflow(stats)) (output_side_ ? sink_->outputs : sink_->inputs) = true;
    sink_->held.push_back(hold());
  }
  uint32_t data_crc = 0;
  if (save) file_contents = tensor_file_contents(t, stem, requires_grad, opt.framework, &data_crc);
  write_tensor_record_with_stats(w, t.dtype, t.shape, stats, requires_grad, data_name, opt);
  if (!save) return;
  const std::string earlier =
      links_files() && id != nullptr ? dedup_.link_target(*id, data_crc, data_name) : std::string();
  if (!earlier.empty())
    s_.link_tensor_file(earlier, data_name, std::move(file_contents));
  else
    s_.save_tensor_file(data_name, std::move(file_contents));
}

void TensorOutput::save_held(const TensorView& t, const HeldTensor& h) {
  std::string contents =
      tensor_file_contents(t, h.stem, h.requires_grad, s_.record_options().framework, nullptr);
  s_.save_tensor_file(h.stem + s_.tensor_extension(), std::move(contents));
}

}  // namespace msprobe
