// Reading entries of a zip archive held in memory (an .xlsx workbook): stored and deflated
// entries, zip64 sizes and offsets. Untrusted input: every offset is checked, and an entry may
// not inflate beyond `max_entry_bytes` (a zip bomb is refused, not expanded).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace msprobe {

class ZipReader {
 public:
  // `bytes` must outlive the reader. `origin` names the file in error messages. Throws FileError
  // when there is no readable central directory.
  ZipReader(const std::string& bytes, std::string origin, uint64_t max_entry_bytes = 1ull << 32);

  bool has(const std::string& name) const;
  // The entry's uncompressed content; FileError when absent, damaged or too large.
  std::string read(const std::string& name) const;
  std::vector<std::string> names() const;

 private:
  struct Entry {
    std::string name;
    uint16_t method = 0;
    uint64_t csize = 0, usize = 0, local_offset = 0;
    uint32_t crc = 0;
  };
  const Entry* find(const std::string& name) const;
  const std::string& z_;
  std::string origin_;
  uint64_t max_entry_bytes_;
  std::vector<Entry> entries_;
};

}  // namespace msprobe
