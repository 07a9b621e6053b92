// MD5 (RFC 1321) of a byte stream, for the "MD5" column of MindSpore's statistic.csv.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace msprobe {

class Md5 {
 public:
  Md5();
  void update(const void* data, size_t len);
  std::string hex_digest();  // 32 lowercase hex digits; ends the computation

 private:
  void block(const unsigned char* p);
  uint32_t h_[4];
  unsigned char buf_[64];
  size_t buf_len_ = 0;
  uint64_t total_ = 0;
};

}  // namespace msprobe
