// Layout of STORED zip archives as PyTorch writes them (see zip_writer.h). Field layouts follow
// PKWARE's APPNOTE.TXT: local file header 4.3.7, data descriptor 4.3.9, central directory
// header 4.3.12, zip64 end of central directory record/locator 4.3.14-15, end record 4.3.16,
// zip64 extended information extra field 4.5.3.
#include "msprobe/format/zip_writer.h"

#include <cstring>
#include <utility>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "msprobe/base/error.h"

namespace msprobe {
namespace {

constexpr uint32_t kLocalHeaderSig = 0x04034b50u;
constexpr uint32_t kDescriptorSig = 0x08074b50u;
constexpr uint32_t kCentralSig = 0x02014b50u;
constexpr uint32_t kZip64EndSig = 0x06064b50u;
constexpr uint32_t kZip64LocatorSig = 0x07064b50u;
constexpr uint32_t kEndSig = 0x06054b50u;

constexpr uint64_t kLocalHeaderSize = 30;
constexpr uint64_t kCentralHeaderSize = 46;
constexpr uint64_t kZip64EndSize = 56;
constexpr uint64_t kZip64LocatorSize = 20;
constexpr uint64_t kEndSize = 22;

// General purpose flags: bit 3 (sizes and CRC in a data descriptor after the data), bit 11
// (UTF-8 names). PyTorch sets bit 3 only on entries that have data.
constexpr uint16_t kFlagDescriptor = 0x0008;
constexpr uint16_t kFlagUtf8 = 0x0800;
constexpr uint16_t kZip64ExtraId = 0x0001;
constexpr uint16_t kZip64VersionMadeBy = 0x031e;  // Unix, 3.0
constexpr uint16_t kZip64VersionNeeded = 45;      // 4.5: zip64

class Out {
 public:
  explicit Out(char* p) : p_(p) {}
  void u16(uint16_t v) {
    for (int i = 0; i < 2; ++i) *p_++ = (char)(v >> (8 * i));
  }
  void u32(uint32_t v) {
    for (int i = 0; i < 4; ++i) *p_++ = (char)(v >> (8 * i));
  }
  void u64(uint64_t v) {
    for (int i = 0; i < 8; ++i) *p_++ = (char)(v >> (8 * i));
  }
  void bytes(const std::string& s) {
    std::memcpy(p_, s.data(), s.size());
    p_ += s.size();
  }
  void fill(char c, size_t n) {
    std::memset(p_, c, n);
    p_ += n;
  }
  char* pos() const { return p_; }

 private:
  char* p_;
};

uint16_t flags_of(uint64_t size) { return size > 0 ? (kFlagUtf8 | kFlagDescriptor) : kFlagUtf8; }

// The Zip64 extra field's data: the size and the compressed size when the size needs 64 bits,
// then the local header's offset when that does.
uint16_t zip64_data_size(bool wide_size, bool wide_offset) {
  return (uint16_t)((wide_size ? 16 : 0) + (wide_offset ? 8 : 0));
}
void write_zip64_extra(Out& o, bool wide_size, bool wide_offset, uint64_t size, uint64_t compressed,
                       uint64_t header_offset) {
  o.u16(kZip64ExtraId);
  o.u16(zip64_data_size(wide_size, wide_offset));
  if (wide_size) {
    o.u64(size);
    o.u64(compressed);
  }
  if (wide_offset) o.u64(header_offset);
}

}  // namespace

void advise_huge_pages(void* p, size_t size) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  constexpr uintptr_t kHuge = uintptr_t(2) << 20;
  if (size < 2 * kHuge) return;
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(p) + kHuge - 1) & ~(kHuge - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(p) + size) & ~(kHuge - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);  // advisory
#else
  (void)p;
  (void)size;
#endif
}

StoredZipWriter::StoredZipWriter(uint64_t alignment, uint64_t zip64_limit)
    : alignment_(alignment), limit_(zip64_limit) {
  if (alignment_ == 0 || alignment_ > 0x8000) {
    throw InvalidInput("zip alignment must be in 1..32768, got " + std::to_string(alignment));
  }
}

size_t StoredZipWriter::add_entry(std::string name, uint64_t size) {
  if (name.empty() || name.size() > 0xFFFFu) {
    throw InvalidInput("zip entry name must have 1..65535 bytes, got " + std::to_string(name.size()));
  }
  Entry e;
  e.name = std::move(name);
  e.size = size;
  e.header_offset = cursor_;
  e.zip64_size = size >= limit_;
  e.zip64_offset = cursor_ >= limit_;
  uint64_t start = cursor_ + kLocalHeaderSize + e.name.size() + 4;  // + "FB" id and length
  if (e.zip64_size || e.zip64_offset) start += 4 + zip64_data_size(e.zip64_size, e.zip64_offset);
  e.padding = (uint16_t)((alignment_ - start % alignment_) % alignment_);
  e.data_offset = start + e.padding;
  cursor_ = e.data_offset + size + descriptor_size(e);
  entries_.push_back(std::move(e));
  return entries_.size() - 1;
}

void StoredZipWriter::set_crc(size_t index, uint32_t crc) { entries_.at(index).crc = crc; }

uint64_t StoredZipWriter::descriptor_size(const Entry& e) const {
  if (e.size == 0) return 0;
  return (e.zip64_size || e.zip64_offset) ? 24 : 16;
}

uint64_t StoredZipWriter::central_entry_size(const Entry& e) const {
  uint64_t extra = 0;
  if (e.zip64_size || e.zip64_offset) extra = 4 + zip64_data_size(e.zip64_size, e.zip64_offset);
  return kCentralHeaderSize + e.name.size() + extra;
}

uint64_t StoredZipWriter::central_size() const {
  uint64_t n = 0;
  for (const Entry& e : entries_) n += central_entry_size(e);
  return n;
}

uint64_t StoredZipWriter::total_size() const {
  return cursor_ + central_size() + kZip64EndSize + kZip64LocatorSize + kEndSize;
}

void StoredZipWriter::write_structure(char* dst) const {
  for (const Entry& e : entries_) {
    const bool z64 = e.zip64_size || e.zip64_offset;
    Out o(dst + e.header_offset);
    o.u32(kLocalHeaderSig);
    o.u16(0);  // version needed (PyTorch writes 0 for STORED entries)
    o.u16(flags_of(e.size));
    o.u16(0);  // method: stored
    o.u16(0);  // time
    o.u16(0);  // date
    o.u32(0);  // crc, sizes: in the data descriptor
    o.u32(0);
    o.u32(0);
    o.u16((uint16_t)e.name.size());
    const uint64_t extra_len = e.data_offset - (e.header_offset + kLocalHeaderSize + e.name.size());
    o.u16((uint16_t)extra_len);
    o.bytes(e.name);
    // Compressed size 0: not known to a streaming writer; the descriptor has it.
    if (z64) write_zip64_extra(o, e.zip64_size, e.zip64_offset, e.size, 0, e.header_offset);
    o.u16(0x4246);  // "FB"
    o.u16(e.padding);
    o.fill('Z', e.padding);
    if (e.size > 0) {
      Out d(dst + e.data_offset + e.size);
      d.u32(kDescriptorSig);
      d.u32(e.crc);
      if (z64) {
        d.u64(e.size);
        d.u64(e.size);
      } else {
        d.u32((uint32_t)e.size);
        d.u32((uint32_t)e.size);
      }
    }
  }

  const uint64_t cd_offset = cursor_;
  Out o(dst + cd_offset);
  for (const Entry& e : entries_) {
    const bool z64 = e.zip64_size || e.zip64_offset;
    o.u32(kCentralSig);
    o.u16(0);  // version made by
    o.u16(0);  // version needed
    o.u16(flags_of(e.size));
    o.u16(0);  // method
    o.u16(0);  // time
    o.u16(0);  // date
    o.u32(e.crc);
    o.u32(e.zip64_size ? 0xFFFFFFFFu : (uint32_t)e.size);
    o.u32(e.zip64_size ? 0xFFFFFFFFu : (uint32_t)e.size);
    o.u16((uint16_t)e.name.size());
    o.u16((uint16_t)(z64 ? 4 + zip64_data_size(e.zip64_size, e.zip64_offset) : 0));
    o.u16(0);  // comment length
    o.u16(0);  // disk number start
    o.u16(0);  // internal attributes
    o.u32(0);  // external attributes
    o.u32(e.zip64_offset ? 0xFFFFFFFFu : (uint32_t)e.header_offset);
    o.bytes(e.name);
    if (z64) write_zip64_extra(o, e.zip64_size, e.zip64_offset, e.size, e.size, e.header_offset);
  }
  const uint64_t cd_size = central_size();
  const uint64_t zip64_end_offset = cd_offset + cd_size;
  const uint64_t n = entries_.size();

  o.u32(kZip64EndSig);
  o.u64(kZip64EndSize - 12);  // size of the rest of the record
  o.u16(kZip64VersionMadeBy);
  o.u16(kZip64VersionNeeded);
  o.u32(0);  // this disk
  o.u32(0);  // disk with the central directory
  o.u64(n);
  o.u64(n);
  o.u64(cd_size);
  o.u64(cd_offset);

  o.u32(kZip64LocatorSig);
  o.u32(0);  // disk with the zip64 end record
  o.u64(zip64_end_offset);
  o.u32(1);  // total disks

  o.u32(kEndSig);
  o.u16(0);
  o.u16(0);
  o.u16(n >= 0xFFFFu ? 0xFFFFu : (uint16_t)n);
  o.u16(n >= 0xFFFFu ? 0xFFFFu : (uint16_t)n);
  o.u32(cd_size >= limit_ ? 0xFFFFFFFFu : (uint32_t)cd_size);
  o.u32(cd_offset >= limit_ ? 0xFFFFFFFFu : (uint32_t)cd_offset);
  o.u16(0);  // comment length
}

}  // namespace msprobe
