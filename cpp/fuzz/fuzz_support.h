// Shared by the libFuzzer targets: a scratch folder (tmpfs when there is one) for parsers that
// read files, splitting one input into several files, and the rule that a parser may reject
// input only with its documented error types.
#pragma once
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace msprobe_fuzz {

// A folder of this process, emptied at start and removed at exit (write_file makes it again if
// it was removed).
inline const std::string& scratch() {
  // Never destroyed: the exit handler that removes the folder runs after static destructors.
  static const std::string* dir = [] {
    const char* base = ::access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    auto* d = new std::string(std::string(base) + "/msprobe_fuzz_" + std::to_string(::getpid()));
    std::filesystem::remove_all(*d);
    std::filesystem::create_directories(*d);
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(scratch(), ec);
    });
    return d;
  }();
  return *dir;
}

inline std::string write_file(const std::string& name, std::string_view bytes) {
  const std::string path = scratch() + "/" + name;
  if (::unlink(path.c_str()) != 0) std::filesystem::create_directories(scratch());
  std::ofstream(path, std::ios::binary).write(bytes.data(), (std::streamsize)bytes.size());
  return path;
}

inline std::string_view as_text(const uint8_t* data, size_t size) {
  return std::string_view(reinterpret_cast<const char*>(data), size);
}

// The input as `n` files: parts separated by the line "@@@@" (missing parts are empty).
inline std::vector<std::string_view> split(std::string_view in, size_t n) {
  static constexpr std::string_view kSep = "\n@@@@\n";
  std::vector<std::string_view> parts;
  while (parts.size() + 1 < n) {
    const size_t at = in.find(kSep);
    if (at == std::string_view::npos) break;
    parts.push_back(in.substr(0, at));
    in.remove_prefix(at + kSep.size());
  }
  parts.push_back(in);
  parts.resize(n);
  return parts;
}

// ---- zip re-packing (the xlsx target) ------------------------------------------------------
// A mutated byte inside a zip entry almost always breaks its CRC (or its deflate stream), so a
// fuzzer fed whole .xlsx files would stop at the zip layer. repack_zip() takes the entries found
// by walking the local headers (stored ones as they are, deflated ones when they inflate) and
// writes them again as a stored zip with correct sizes and CRCs: what the fuzzer changed in the
// XML then reaches the XML reader.

inline uint32_t le(std::string_view s, size_t at, int bytes) {
  uint32_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | (unsigned char)s[at + (size_t)i];
  return v;
}

inline void put_le(std::string& out, uint32_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out += (char)((v >> (8 * i)) & 0xFF);
}

// The raw deflate stream at the start of `in`, inflated (at most `limit` bytes); false when it
// does not end within `in` or inflates beyond the limit.
inline bool inflate_raw(std::string_view in, size_t limit, std::string& out) {
  z_stream zs{};
  if (inflateInit2(&zs, -MAX_WBITS) != Z_OK) return false;
  out.assign(std::min<size_t>(limit, 4 * in.size() + 4096), '\0');
  zs.next_in = (Bytef*)in.data();
  zs.avail_in = (uInt)in.size();
  int rc = Z_OK;
  while (rc == Z_OK) {
    if (zs.total_out == out.size()) {
      if (out.size() >= limit) break;
      out.resize(std::min<size_t>(limit, 2 * out.size()));
    }
    zs.next_out = (Bytef*)&out[zs.total_out];
    zs.avail_out = (uInt)(out.size() - zs.total_out);
    rc = inflate(&zs, Z_NO_FLUSH);
  }
  out.resize(zs.total_out);
  inflateEnd(&zs);
  return rc == Z_STREAM_END;
}

inline std::string repack_zip(std::string_view z, size_t entry_limit = 1 << 20) {
  std::vector<std::pair<std::string, std::string>> entries;  // name, content
  size_t p = 0;
  while (z.size() - p >= 30 && le(z, p, 4) == 0x04034b50 && entries.size() < 64) {
    const uint32_t method = le(z, p + 8, 2), csize = le(z, p + 18, 4);
    const size_t nlen = le(z, p + 26, 2), xlen = le(z, p + 28, 2);
    const size_t data = p + 30 + nlen + xlen;
    if (data > z.size()) break;
    std::string name(z.substr(p + 30, nlen)), content;
    if (method == 0) {  // stored: the local header's size (no data descriptor: Python's zipfile)
      if (csize > z.size() - data) break;
      content = std::string(z.substr(data, csize));
      p = data + csize;
    } else if (method == 8 && inflate_raw(z.substr(data), entry_limit, content)) {
      // Deflated (openpyxl, libxlsxwriter): the next header is searched for, as a data
      // descriptor may lie between.
      const size_t next = z.find("PK\x03\x04", data);
      p = next == std::string_view::npos ? z.size() : next;
    } else {
      break;
    }
    entries.emplace_back(std::move(name), std::move(content));
  }
  std::string out, dir;
  for (const auto& [name, content] : entries) {
    const uint32_t crc = (uint32_t)crc32_z(0, (const Bytef*)content.data(), content.size());
    const uint32_t offset = (uint32_t)out.size();
    for (std::string* h : {&out, &dir}) {
      const bool central = h == &dir;
      put_le(*h, central ? 0x02014b50 : 0x04034b50, 4);
      if (central) put_le(*h, 20, 2);  // version made by
      put_le(*h, 20, 2);               // version needed
      put_le(*h, 0, 2);                // flags
      put_le(*h, 0, 2);                // stored
      put_le(*h, 0, 4);                // time, date
      put_le(*h, crc, 4);
      put_le(*h, (uint32_t)content.size(), 4);
      put_le(*h, (uint32_t)content.size(), 4);
      put_le(*h, (uint32_t)name.size(), 2);
      put_le(*h, 0, 2);  // extra field
      if (central) {
        put_le(*h, 0, 2);  // comment
        put_le(*h, 0, 4);  // disk, internal attributes
        put_le(*h, 0, 4);  // external attributes
        put_le(*h, offset, 4);
      }
      *h += name;
    }
    out += content;
  }
  const uint32_t dir_offset = (uint32_t)out.size();
  out += dir;
  put_le(out, 0x06054b50, 4);
  put_le(out, 0, 4);  // disk numbers
  put_le(out, (uint32_t)entries.size(), 2);
  put_le(out, (uint32_t)entries.size(), 2);
  put_le(out, (uint32_t)dir.size(), 4);
  put_le(out, dir_offset, 4);
  put_le(out, 0, 2);  // comment
  return out;
}

}  // namespace msprobe_fuzz
