// Uncompressed (STORED) zip archives with the layout PyTorch's archive writer produces for
// torch.save: every entry's data starts on an `alignment` boundary (padding in an "FB" extra
// field), sizes and CRC follow the data in a data descriptor, a zip64 end-of-central-directory
// record is always written, and zip64 extra fields appear exactly where an offset or size reaches
// 0xFFFFFFFF. Readers that use the central directory (zipfile, miniz, torch.load) read it, and so
// does torch.load's "calculate storage offsets" path, which recomputes the layout itself.
//
// Two phases so that the caller owns the destination buffer and writes the data in place:
//   StoredZipWriter z; z.add_entry(name, size)...;  buffer of z.total_size() bytes;
//   write each entry's data at z.data_offset(i) and z.set_crc(i, crc); z.write_structure(buffer).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace msprobe {

// Advises huge pages for the whole 2 MiB pages inside [p, p + size) when size >= 4 MiB: filling a
// fresh multi-MiB buffer costs more in first-touch page faults than in copying.
void advise_huge_pages(void* p, size_t size);

class StoredZipWriter {
 public:
  static constexpr uint64_t kZip64Limit = 0xFFFFFFFFu;

  // zip64_limit: sizes and offsets >= this use zip64 fields (tests lower it to exercise zip64).
  explicit StoredZipWriter(uint64_t alignment = 64, uint64_t zip64_limit = kZip64Limit);

  // Declares the next entry (full name inside the archive, at most 65535 bytes); returns its index.
  size_t add_entry(std::string name, uint64_t size);
  void set_crc(size_t index, uint32_t crc);

  size_t entry_count() const { return entries_.size(); }
  uint64_t data_offset(size_t index) const { return entries_[index].data_offset; }
  uint64_t header_offset(size_t index) const { return entries_[index].header_offset; }
  uint64_t total_size() const;

  // Writes the local headers, data descriptors, central directory and end records into `dst`
  // (total_size() bytes). The data regions are not touched.
  void write_structure(char* dst) const;

 private:
  struct Entry {
    std::string name;
    uint64_t size = 0;
    uint32_t crc = 0;
    uint64_t header_offset = 0;
    uint64_t data_offset = 0;
    uint16_t padding = 0;       // bytes of 'Z' in the FB field
    bool zip64_size = false;    // size >= limit
    bool zip64_offset = false;  // header_offset >= limit
  };
  uint64_t descriptor_size(const Entry& e) const;
  uint64_t central_entry_size(const Entry& e) const;
  uint64_t central_size() const;

  uint64_t alignment_;
  uint64_t limit_;
  uint64_t cursor_ = 0;  // end of the last entry (its descriptor included)
  std::vector<Entry> entries_;
};

}  // namespace msprobe
