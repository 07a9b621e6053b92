#include "msprobe/format/zip_reader.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>

#include "msprobe/base/error.h"

namespace msprobe {

namespace {

uint16_t u16(const std::string& s, uint64_t at) {
  return (uint16_t)((unsigned char)s[at] | ((unsigned char)s[at + 1] << 8));
}
uint32_t u32(const std::string& s, uint64_t at) { return u16(s, at) | ((uint32_t)u16(s, at + 2) << 16); }
uint64_t u64(const std::string& s, uint64_t at) { return u32(s, at) | ((uint64_t)u32(s, at + 4) << 32); }

}  // namespace

ZipReader::ZipReader(const std::string& bytes, std::string origin, uint64_t max_entry_bytes)
    : z_(bytes), origin_(std::move(origin)), max_entry_bytes_(max_entry_bytes) {
  auto bad = [&](const std::string& what) {
    throw FileError(origin_ + ": not a readable .xlsx/zip file (" + what + ")");
  };
  if (z_.size() < 22) bad("too short");
  // End of central directory: the last signature within the final 64 KiB + 22 bytes.
  uint64_t eocd = std::string::npos;
  const uint64_t lowest = z_.size() > 65557 ? z_.size() - 65557 : 0;
  for (uint64_t p = z_.size() - 22 + 1; p-- > lowest;) {
    if (u32(z_, p) == 0x06054b50) {
      eocd = p;
      break;
    }
  }
  if (eocd == std::string::npos) bad("no end of central directory");
  uint64_t count = u16(z_, eocd + 10);
  uint64_t cd_offset = u32(z_, eocd + 16);
  if ((count == 0xFFFF || cd_offset == 0xFFFFFFFFu) && eocd >= 20 && u32(z_, eocd - 20) == 0x07064b50) {
    const uint64_t e64 = u64(z_, eocd - 20 + 8);
    if (e64 > z_.size() || z_.size() - e64 < 56 || u32(z_, e64) != 0x06064b50) bad("bad zip64 directory");
    count = u64(z_, e64 + 32);
    cd_offset = u64(z_, e64 + 48);
  }
  uint64_t p = cd_offset;
  for (uint64_t i = 0; i < count; ++i) {
    if (p > z_.size() || z_.size() - p < 46 || u32(z_, p) != 0x02014b50) bad("bad central directory");
    Entry e;
    e.method = u16(z_, p + 10);
    e.crc = u32(z_, p + 16);
    e.csize = u32(z_, p + 20);
    e.usize = u32(z_, p + 24);
    const uint16_t nlen = u16(z_, p + 28), xlen = u16(z_, p + 30), clen = u16(z_, p + 32);
    e.local_offset = u32(z_, p + 42);
    if (z_.size() - p - 46 < (uint64_t)nlen + xlen + clen) bad("bad central directory");
    e.name = z_.substr(p + 46, nlen);
    // zip64 extra field: the values that are 0xFFFFFFFF follow in the order usize, csize, offset.
    uint64_t x = p + 46 + nlen;
    const uint64_t xend = x + xlen;
    while (x + 4 <= xend) {
      const uint16_t id = u16(z_, x), len = u16(z_, x + 2);
      if (x + 4 + len > xend) break;
      if (id == 0x0001) {
        uint64_t q = x + 4;
        const uint64_t qend = q + len;
        if (e.usize == 0xFFFFFFFFu && q + 8 <= qend) e.usize = u64(z_, q), q += 8;
        if (e.csize == 0xFFFFFFFFu && q + 8 <= qend) e.csize = u64(z_, q), q += 8;
        if (e.local_offset == 0xFFFFFFFFu && q + 8 <= qend) e.local_offset = u64(z_, q), q += 8;
      }
      x += 4 + len;
    }
    entries_.push_back(std::move(e));
    p += 46 + (uint64_t)nlen + xlen + clen;
  }
}

const ZipReader::Entry* ZipReader::find(const std::string& name) const {
  for (const Entry& e : entries_)
    if (e.name == name) return &e;
  return nullptr;
}

bool ZipReader::has(const std::string& name) const { return find(name) != nullptr; }

std::vector<std::string> ZipReader::names() const {
  std::vector<std::string> out;
  for (const Entry& e : entries_) out.push_back(e.name);
  return out;
}

std::string ZipReader::read(const std::string& name) const {
  const Entry* e = find(name);
  const std::string where = origin_ + ": entry " + name;
  if (e == nullptr) throw FileError(where + " is missing (not a valid .xlsx workbook)");
  if (e->usize > max_entry_bytes_) throw FileError(where + " is too large to read");
  const uint64_t h = e->local_offset;
  if (h > z_.size() || z_.size() - h < 30 || u32(z_, h) != 0x04034b50)
    throw FileError(where + ": bad local header");
  const uint64_t data = h + 30 + u16(z_, h + 26) + u16(z_, h + 28);
  if (data > z_.size() || z_.size() - data < e->csize) throw FileError(where + " is truncated");
  std::string out;
  if (e->method == 0) {
    if (e->csize != e->usize) throw FileError(where + ": inconsistent sizes");
    out = z_.substr(data, e->csize);
  } else if (e->method == 8) {
    // Deflate cannot expand beyond ~1032:1; a larger claimed size is a damaged (or hostile)
    // header, refused before anything is allocated.
    if (e->usize / 1032 > e->csize + 1) throw FileError(where + " is damaged (impossible sizes)");
    out.resize(e->usize);
    z_stream zs;
    std::memset(&zs, 0, sizeof(zs));
    if (inflateInit2(&zs, -MAX_WBITS) != Z_OK) throw FileError(where + ": cannot start inflate");
    uint64_t in_done = 0, out_done = 0;
    int rc = Z_OK;
    // zlib counts in uInt; feed and drain in chunks so entries over 4 GiB stay correct.
    while (rc == Z_OK) {
      const uint64_t in_left = e->csize - in_done, out_left = e->usize - out_done;
      zs.next_in = (Bytef*)(z_.data() + data + in_done);
      zs.avail_in = (uInt)std::min<uint64_t>(in_left, 1u << 30);
      zs.next_out = (Bytef*)(&out[0] + out_done);
      zs.avail_out = (uInt)std::min<uint64_t>(out_left, 1u << 30);
      const uInt in0 = zs.avail_in, out0 = zs.avail_out;
      rc = inflate(&zs, Z_NO_FLUSH);
      in_done += in0 - zs.avail_in;
      out_done += out0 - zs.avail_out;
      if (rc == Z_BUF_ERROR || (rc == Z_OK && in0 == zs.avail_in && out0 == zs.avail_out)) break;
    }
    inflateEnd(&zs);
    if (rc != Z_STREAM_END || out_done != e->usize) throw FileError(where + " is damaged (inflate failed)");
  } else {
    throw FileError(where + ": unsupported compression method " + std::to_string(e->method));
  }
  if ((uint32_t)crc32_z(0L, (const Bytef*)out.data(), out.size()) != e->crc) {
    throw FileError(where + " is damaged (CRC mismatch)");
  }
  return out;
}

}  // namespace msprobe
