// The C++ .pt reader: round trip with our torch.save encoder, zip64 archives, refusals, corrupt
// and crafted input (every offset of a crafted file must be refused without reading outside it).
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "msprobe/format/pt_reader.h"
#include "msprobe/format/pt_writer.h"
#include "msprobe/format/zip_writer.h"

namespace msprobe {
namespace {

uint64_t le(const std::string& s, size_t at, int n) {
  uint64_t v = 0;
  for (int i = n; i-- > 0;) v = v << 8 | (unsigned char)s.at(at + (size_t)i);
  return v;
}
void put_le(std::string& s, size_t at, uint64_t v, int n) {
  for (int i = 0; i < n; ++i) s.at(at + (size_t)i) = (char)(v >> (8 * i));
}

// The entries of a small (non-zip64) stored archive, read from its central directory.
std::vector<std::pair<std::string, std::string>> entries_of(const std::string& z) {
  size_t eocd = z.rfind(std::string("PK\x05\x06", 4));
  EXPECT_NE(eocd, std::string::npos);
  const size_t count = le(z, eocd + 10, 2);
  size_t p = le(z, eocd + 16, 4);
  std::vector<std::pair<std::string, std::string>> out;
  for (size_t i = 0; i < count; ++i) {
    const size_t size = le(z, p + 24, 4), nlen = le(z, p + 28, 2), xlen = le(z, p + 30, 2),
                 clen = le(z, p + 32, 2), local = le(z, p + 42, 4);
    const size_t data = local + 30 + le(z, local + 26, 2) + le(z, local + 28, 2);
    out.emplace_back(z.substr(p + 46, nlen), z.substr(data, size));
    p += 46 + nlen + xlen + clen;
  }
  return out;
}

// The same entries re-archived with every size and offset in zip64 extra fields.
std::string as_zip64(const std::vector<std::pair<std::string, std::string>>& entries) {
  StoredZipWriter zw(64, /*zip64_limit=*/0);
  for (const auto& e : entries) zw.add_entry(e.first, e.second.size());
  std::string out(zw.total_size(), '\0');
  for (size_t i = 0; i < entries.size(); ++i) {
    std::memcpy(&out[zw.data_offset(i)], entries[i].second.data(), entries[i].second.size());
  }
  zw.write_structure(&out[0]);
  return out;
}

// Offsets of the 8-byte local-header offsets in the central directory's zip64 extra fields.
std::vector<size_t> zip64_local_offset_fields(const std::string& z) {
  const size_t eocd = z.rfind(std::string("PK\x05\x06", 4));
  const size_t e64 = le(z, eocd - 20 + 8, 8);
  size_t p = le(z, e64 + 48, 8);
  const size_t count = le(z, e64 + 32, 8);
  std::vector<size_t> out;
  for (size_t i = 0; i < count; ++i) {
    EXPECT_EQ(le(z, p, 4), 0x02014b50u);
    const size_t nlen = le(z, p + 28, 2), xlen = le(z, p + 30, 2), clen = le(z, p + 32, 2);
    size_t q = p + 46 + nlen + 4;  // first extra field: zip64
    EXPECT_EQ(le(z, p + 46 + nlen, 2), 1u);
    if (le(z, p + 24, 4) == 0xffffffffu) q += 8;
    if (le(z, p + 20, 4) == 0xffffffffu) q += 8;
    EXPECT_EQ(le(z, p + 42, 4), 0xffffffffu);
    out.push_back(q);
    p += 46 + nlen + xlen + clen;
  }
  return out;
}

// Offsets of the zip64 extra field headers (id, length) in the central directory.
std::vector<size_t> zip64_extra_headers(const std::string& z) {
  const size_t eocd = z.rfind(std::string("PK\x05\x06", 4));
  const size_t e64 = le(z, eocd - 20 + 8, 8);
  size_t p = le(z, e64 + 48, 8);
  std::vector<size_t> out;
  for (size_t i = 0, count = le(z, e64 + 32, 8); i < count; ++i) {
    const size_t nlen = le(z, p + 28, 2), xlen = le(z, p + 30, 2), clen = le(z, p + 32, 2);
    out.push_back(p + 46 + nlen);
    p += 46 + nlen + xlen + clen;
  }
  return out;
}

std::string int64_pt() {
  static const std::vector<int64_t> v{1, 2, 3};
  TensorView t;
  t.data = v.data();
  t.dtype = DType::kInt64;
  t.shape = {3};
  return encode_pt(t, "z", false);
}

TEST(FormatPtReader, RoundTripWithEncoder) {
  std::vector<float> v{1.5f, -2.0f, 3.25f, 0.0f, 5.0f, 6.0f};
  TensorView t;
  t.data = v.data();
  t.dtype = DType::kFloat32;
  t.shape = {2, 3};
  const std::string bytes = encode_pt(t, "x", true);
  PtTensor r = parse_pt(bytes);
  EXPECT_EQ(r.dtype, DType::kFloat32);
  EXPECT_EQ(r.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(r.stride, (std::vector<int64_t>{3, 1}));
  EXPECT_EQ(r.storage_offset, 0);
  EXPECT_TRUE(r.requires_grad);
  ASSERT_EQ(r.storage_bytes, v.size() * 4);
  EXPECT_EQ(std::memcmp(r.storage, v.data(), r.storage_bytes), 0);
  // Zero copy: the storage lies inside the parsed bytes.
  EXPECT_GE((const char*)r.storage, bytes.data());
  EXPECT_LE((const char*)r.storage + r.storage_bytes, bytes.data() + bytes.size());

  std::vector<uint16_t> h{0x3c00, 0x4000};
  TensorView b;
  b.data = h.data();
  b.dtype = DType::kBFloat16;
  b.shape = {};
  PtTensor rb = parse_pt(encode_pt(b, "y", false));
  EXPECT_EQ(rb.dtype, DType::kBFloat16);
  EXPECT_TRUE(rb.shape.empty());
  EXPECT_EQ(rb.storage_bytes, 2u);
}

TEST(FormatPtReader, ReadsZip64Archives) {
  const std::string z64 = as_zip64(entries_of(int64_pt()));
  PtTensor r = parse_pt(z64);
  EXPECT_EQ(r.dtype, DType::kInt64);
  ASSERT_EQ(r.storage_bytes, 24u);
  int64_t got[3];
  std::memcpy(got, r.storage, 24);
  EXPECT_EQ(got[2], 3);
}

TEST(FormatPtReader, RefusesWhatItDoesNotRead) {
  EXPECT_THROW(parse_pt(std::string()), PtUnsupported);
  EXPECT_THROW(parse_pt(std::string("not a zip file at all, just text........")), PtUnsupported);
  const std::string good = int64_pt();
  // Every truncation and every single-byte corruption is refused or read within bounds (the
  // copies are exactly sized heap buffers, so ASan sees any read outside them).
  for (size_t n = 0; n < good.size(); n += 7) {
    const std::string cut = good.substr(0, n);
    EXPECT_THROW(parse_pt(cut), PtUnsupported);
  }
  for (size_t i = 0; i < good.size(); ++i) {
    std::string bad = good;
    bad[i] = (char)(bad[i] ^ 0x5a);
    try {
      PtTensor r = parse_pt(bad);
      int64_t last = r.storage_offset;
      for (size_t d = 0; d < r.shape.size(); ++d) last += (r.shape[d] - 1) * r.stride[d];
      EXPECT_LE((size_t)(last + 1) * dtype_size(r.dtype), r.storage_bytes);
      EXPECT_GE((const char*)r.storage, bad.data());
      EXPECT_LE((const char*)r.storage + r.storage_bytes, bad.data() + bad.size());
    } catch (const PtUnsupported&) {
    }
  }
}

// Regression: a zip64 local-header offset near 2^64 made `local + 30 > size` wrap and pass, and
// the reader then read before the buffer (ASan heap-buffer-overflow).
TEST(FormatPtReader, CraftedZip64OffsetsNearTwoToThe64AreRefused) {
  const std::string z64 = as_zip64(entries_of(int64_pt()));
  const std::vector<size_t> fields = zip64_local_offset_fields(z64);
  ASSERT_FALSE(fields.empty());
  for (size_t f : fields) {
    for (uint64_t v : std::vector<uint64_t>{~0ULL, ~0ULL - 3, ~0ULL - 29, ~0ULL - 63, 1ULL << 63, z64.size(),
                                            z64.size() - 29}) {
      std::string bad = z64;
      put_le(bad, f, v, 8);
      EXPECT_THROW(parse_pt(bad), PtUnsupported) << "offset " << v;
    }
  }
  // The zip64 end-of-central-directory offset and the central directory offset, too.
  const size_t eocd = z64.rfind(std::string("PK\x05\x06", 4));
  const size_t e64 = le(z64, eocd - 20 + 8, 8);
  for (uint64_t v : std::vector<uint64_t>{~0ULL, ~0ULL - 55, ~0ULL - 19}) {
    std::string bad = z64;
    put_le(bad, eocd - 20 + 8, v, 8);
    EXPECT_THROW(parse_pt(bad), PtUnsupported);
    bad = z64;
    put_le(bad, e64 + 48, v, 8);
    EXPECT_THROW(parse_pt(bad), PtUnsupported);
    bad = z64;
    put_le(bad, e64 + 32, v, 8);  // entry count
    EXPECT_THROW(parse_pt(bad), PtUnsupported);
  }
  // A zip64 extra field claiming more bytes than its central record holds.
  for (size_t f : zip64_extra_headers(z64)) {
    std::string longer = z64;
    put_le(longer, f + 2, 0xfff0, 2);
    EXPECT_THROW(parse_pt(longer), PtUnsupported);
  }
}

}  // namespace
}  // namespace msprobe
