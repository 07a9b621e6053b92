// PyTorch .pt serialisation of one tensor (torch.save's zip format), loadable with
// torch.load(path, weights_only=True) to an identical CPU tensor (dtype, shape, values, bf16 too).
#pragma once
#include <cstdint>
#include <string>

#include "msprobe/tensor/tensor_view.h"

namespace msprobe {

// archive_name: the zip's top folder (torch uses the file stem); requires_grad is recorded.
// Returns the complete file contents; data_crc, when given, receives the CRC-32 of the tensor bytes.
std::string encode_pt(const TensorView& t, const std::string& archive_name, bool requires_grad,
                      uint32_t* data_crc = nullptr);

}  // namespace msprobe
