// The JSON object describing one tensor in dump.json (reference data-dump §3.3): type, dtype,
// shape, statistics, requires_grad, checksum and file name, in the original's key order.
#pragma once
#include <string>

#include "msprobe/config/dump_config.h"
#include "msprobe/format/json_writer.h"
#include "msprobe/stats/tensor_stats.h"
#include "msprobe/tensor/tensor_view.h"

namespace msprobe {

struct TensorRecordOptions {
  Framework framework = Framework::kPyTorch;
  bool want_crc = false;
};

// Computes the statistics of `t` and writes its JSON object. data_name is omitted when empty.
void write_tensor_record(JsonWriter& w, const TensorView& t, bool requires_grad, const std::string& data_name,
                         const TensorRecordOptions& opt);
// Same, for statistics computed elsewhere (e.g. on an accelerator).
void write_tensor_record_with_stats(JsonWriter& w, DType dtype, const std::vector<int64_t>& shape,
                                    const TensorStats& s, bool requires_grad, const std::string& data_name,
                                    const TensorRecordOptions& opt);

}  // namespace msprobe
