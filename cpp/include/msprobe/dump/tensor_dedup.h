// Tensor task (PyTorch): a tensor object saved again unchanged (the same live object, the same
// version counter, the same memory, the same bytes by CRC-32) is hard-linked to its first file
// instead of written twice. The adapter says what identifies a tensor; the decision is here.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "msprobe/tensor/tensor_view.h"

namespace msprobe {

// A weak reference to the adapter's tensor object: the object while it lives, else nullptr.
class ObjectToken {
 public:
  virtual ~ObjectToken() = default;
  virtual const void* object() const = 0;
};

// A tensor as recorded. version < 0 or no token: it cannot be recognised again.
struct TensorIdentity {
  std::shared_ptr<ObjectToken> token;
  int64_t version = -1;  // the framework's in-place modification counter
  const void* data = nullptr;
  DType dtype = DType::kFloat32;
  std::vector<int64_t> shape, strides;
};

class TensorDedup {
 public:
  // The data_name of the earlier file `data_name` should link to, or "" when it is written
  // (then it is remembered).
  std::string link_target(const TensorIdentity& id, uint32_t crc, const std::string& data_name);
  // The step's files are closed: nothing links across steps.
  void clear() { saved_.clear(); }
  size_t remembered() const { return saved_.size(); }

 private:
  static constexpr size_t kMaxRemembered = 8192;  // then it starts over
  struct Saved {
    TensorIdentity id;
    uint32_t crc;
    std::string data_name;
  };
  std::unordered_map<const void*, Saved> saved_;  // by live object
};

}  // namespace msprobe
