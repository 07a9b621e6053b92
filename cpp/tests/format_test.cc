// Tests of the tensor file encoders (.npy, torch.save's zip format) and the zip layout.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "msprobe/base/error.h"
#include "msprobe/format/npy_writer.h"
#include "msprobe/format/pt_writer.h"
#include "msprobe/format/zip_writer.h"

namespace msprobe {
namespace {

// Bitwise CRC-32 (zlib polynomial), independent of the core's implementation.
uint32_t ref_crc32(const char* p, size_t n) {
  uint32_t c = 0xFFFFFFFFu;
  for (size_t i = 0; i < n; ++i) {
    c ^= (uint8_t)p[i];
    for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1u)));
  }
  return ~c;
}

#define BIN(lit) std::string(lit, sizeof(lit) - 1)

uint64_t le(const std::string& s, uint64_t off, int bytes) {
  EXPECT_LE(off + bytes, s.size());
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | (uint8_t)s[off + i];
  return v;
}

struct ZipEntryInfo {
  std::string name;
  uint16_t flags = 0;
  uint32_t crc = 0;
  uint64_t size = 0;
  uint64_t header_offset = 0;
  uint64_t data_offset = 0;
  std::string local_extra;
};

// Reads an archive from its end records the way a reader that trusts the central directory does,
// checking every structure it passes (signatures, zip64 fields, local headers, descriptors, CRCs).
std::vector<ZipEntryInfo> parse_zip(const std::string& z) {
  std::vector<ZipEntryInfo> out;
  EXPECT_GE(z.size(), 22u + 20u + 56u);
  const uint64_t eocd = z.size() - 22;
  EXPECT_EQ(le(z, eocd, 4), 0x06054b50u);
  EXPECT_EQ(le(z, eocd + 20, 2), 0u);  // no comment
  const uint64_t loc = eocd - 20;
  EXPECT_EQ(le(z, loc, 4), 0x07064b50u);
  const uint64_t z64 = le(z, loc + 8, 8);
  EXPECT_EQ(le(z, loc + 16, 4), 1u);
  EXPECT_EQ(z64, loc - 56);
  EXPECT_EQ(le(z, z64, 4), 0x06064b50u);
  EXPECT_EQ(le(z, z64 + 4, 8), 44u);
  const uint64_t n = le(z, z64 + 24, 8);
  EXPECT_EQ(le(z, z64 + 32, 8), n);
  const uint64_t cd_size = le(z, z64 + 40, 8);
  const uint64_t cd_off = le(z, z64 + 48, 8);
  EXPECT_EQ(cd_off + cd_size, z64);
  EXPECT_EQ(le(z, eocd + 8, 2), n);
  EXPECT_EQ(le(z, eocd + 10, 2), n);
  const uint64_t eocd_size = le(z, eocd + 12, 4), eocd_off = le(z, eocd + 16, 4);
  EXPECT_TRUE(eocd_size == cd_size || eocd_size == 0xFFFFFFFFu);
  EXPECT_TRUE(eocd_off == cd_off || eocd_off == 0xFFFFFFFFu);

  uint64_t p = cd_off;
  uint64_t expect_next_header = 0;
  for (uint64_t i = 0; i < n; ++i) {
    ZipEntryInfo e;
    EXPECT_EQ(le(z, p, 4), 0x02014b50u);
    e.flags = (uint16_t)le(z, p + 8, 2);
    EXPECT_EQ(le(z, p + 10, 2), 0u);  // stored
    e.crc = (uint32_t)le(z, p + 16, 4);
    uint64_t csize = le(z, p + 20, 4), usize = le(z, p + 24, 4);
    const uint64_t name_len = le(z, p + 28, 2), extra_len = le(z, p + 30, 2);
    EXPECT_EQ(le(z, p + 32, 2), 0u);
    uint64_t hofs = le(z, p + 42, 4);
    e.name = z.substr(p + 46, name_len);
    const uint64_t extra = p + 46 + name_len;
    if (extra_len) {
      EXPECT_EQ(le(z, extra, 2), 1u);  // zip64 extended information
      uint64_t q = extra + 4;
      if (usize == 0xFFFFFFFFu) {
        usize = le(z, q, 8);
        q += 8;
      }
      if (csize == 0xFFFFFFFFu) {
        csize = le(z, q, 8);
        q += 8;
      }
      if (hofs == 0xFFFFFFFFu) {
        hofs = le(z, q, 8);
        q += 8;
      }
      EXPECT_EQ(q, extra + extra_len);
      EXPECT_EQ(le(z, extra + 2, 2), extra_len - 4);
    }
    EXPECT_EQ(csize, usize);
    e.size = usize;
    e.header_offset = hofs;
    p = extra + extra_len;

    // Local header.
    EXPECT_EQ(hofs, expect_next_header) << e.name;
    EXPECT_EQ(le(z, hofs, 4), 0x04034b50u);
    EXPECT_EQ(le(z, hofs + 6, 2), e.flags);
    EXPECT_EQ(le(z, hofs + 26, 2), name_len);
    const uint64_t lextra_len = le(z, hofs + 28, 2);
    EXPECT_EQ(z.substr(hofs + 30, name_len), e.name);
    e.local_extra = z.substr(hofs + 30 + name_len, lextra_len);
    e.data_offset = hofs + 30 + name_len + lextra_len;
    // The last extra field is "FB" padding filled with 'Z'.
    const size_t fb = e.local_extra.rfind("FB");
    EXPECT_NE(fb, std::string::npos);
    EXPECT_EQ(le(e.local_extra, fb + 2, 2), lextra_len - fb - 4);
    EXPECT_EQ(e.local_extra.find_first_not_of('Z', fb + 4), std::string::npos);
    EXPECT_EQ(ref_crc32(z.data() + e.data_offset, e.size), e.crc) << e.name;
    uint64_t end = e.data_offset + e.size;
    if (e.size > 0) {
      EXPECT_EQ(e.flags, 0x0808);
      EXPECT_EQ(le(z, end, 4), 0x08074b50u);
      EXPECT_EQ(le(z, end + 4, 4), e.crc);
      const bool wide = extra_len != 0;
      const int w = wide ? 8 : 4;
      EXPECT_EQ(le(z, end + 8, w), e.size);
      EXPECT_EQ(le(z, end + 8 + w, w), e.size);
      end += 8 + 2 * w;
    } else {
      EXPECT_EQ(e.flags, 0x0800);
      EXPECT_EQ(le(z, hofs + 14, 4), 0u);
    }
    expect_next_header = end;
    out.push_back(e);
  }
  EXPECT_EQ(p, cd_off + cd_size);
  EXPECT_EQ(expect_next_header, cd_off);
  return out;
}

std::string entry_data(const std::string& z, const ZipEntryInfo& e) {
  return z.substr(e.data_offset, e.size);
}

TensorView view(const void* data, DType dt, std::vector<int64_t> shape, std::vector<int64_t> strides = {}) {
  TensorView v;
  v.data = data;
  v.dtype = dt;
  v.shape = std::move(shape);
  v.strides = std::move(strides);
  return v;
}

const char kPickle2x3[] =
    "\x80\x02"
    "ctorch._utils\n_rebuild_tensor_v2\nq\x00((X\x07\x00\x00\x00storageq\x01"
    "ctorch\nFloatStorage\nq\x02X\x01\x00\x00\x00"
    "0q\x03X\x03\x00\x00\x00"
    "cpuq\x04K\x06tq\x05"
    "QK\x00K\x02K\x03\x86q\x06K\x03K\x01\x86q\x07\x89"
    "ccollections\nOrderedDict\nq\x08)Rq\ttq\n"
    "Rq\x0b.";

// ---------------------------------------------------------------------------------------- npy

TEST(Npy, HeaderFloat32Vector) {
  float data[3] = {1.f, 2.f, 3.f};
  std::string f = encode_npy(view(data, DType::kFloat32, {3}));
  std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }";
  ASSERT_EQ(f.size(), 128u + 12u);
  EXPECT_EQ(f.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  EXPECT_EQ(le(f, 8, 2), 118u);
  EXPECT_EQ(f.substr(10, dict.size()), dict);
  EXPECT_EQ(f.find_first_not_of(' ', 10 + dict.size()), 127u);
  EXPECT_EQ(f[127], '\n');
  EXPECT_EQ(std::memcmp(f.data() + 128, data, 12), 0);
}

TEST(Npy, HeaderShapesAndDescrs) {
  struct Case {
    DType dt;
    std::vector<int64_t> shape;
    std::string dict;
    size_t header;
  };
  const std::vector<Case> cases = {
      {DType::kBool, {}, "{'descr': '|b1', 'fortran_order': False, 'shape': (), }", 128},
      {DType::kComplex128, {2, 3}, "{'descr': '<c16', 'fortran_order': False, 'shape': (2, 3), }", 128},
      {DType::kUInt8, {0, 3}, "{'descr': '|u1', 'fortran_order': False, 'shape': (0, 3), }", 128},
      {DType::kInt8, {1}, "{'descr': '|i1', 'fortran_order': False, 'shape': (1,), }", 128},
      {DType::kInt16, {1}, "{'descr': '<i2', 'fortran_order': False, 'shape': (1,), }", 128},
      {DType::kInt32, {1}, "{'descr': '<i4', 'fortran_order': False, 'shape': (1,), }", 128},
      {DType::kInt64, {1}, "{'descr': '<i8', 'fortran_order': False, 'shape': (1,), }", 128},
      {DType::kFloat16, {1}, "{'descr': '<f2', 'fortran_order': False, 'shape': (1,), }", 128},
      {DType::kBFloat16, {1}, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", 128},
      {DType::kFloat64, {1}, "{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }", 128},
      {DType::kComplex64, {1}, "{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }", 128},
  };
  std::vector<char> zeros(1024, 0);
  for (const Case& c : cases) {
    std::string f = encode_npy(view(zeros.data(), c.dt, c.shape));
    EXPECT_EQ(le(f, 8, 2) + 10, c.header) << c.dict;
    EXPECT_EQ(f.substr(10, c.dict.size()), c.dict);
    EXPECT_EQ(f[c.header - 1], '\n');
    EXPECT_EQ(f.find_first_not_of(' ', 10 + c.dict.size()), c.header - 1) << c.dict;
  }
  // Many dimensions: numpy's header grows in 64-byte steps (here 256 bytes in all).
  std::vector<int64_t> ones(40, 1);
  std::string f = encode_npy(view(zeros.data(), DType::kInt8, ones));
  EXPECT_EQ(le(f, 8, 2), 246u);
  EXPECT_EQ(f.size(), 257u);
}

TEST(Npy, HeaderExactlyAlignedGetsFullPadding) {
  // numpy pads with 64 spaces (not 0) when the header would end exactly on a boundary:
  // shape (0, 1 x 35) has a 181-byte dict (growth spaces included); 10 + 181 + 1 = 192.
  std::vector<int64_t> shape(36, 1);
  shape[0] = 0;
  std::string f = encode_npy(view(nullptr, DType::kUInt8, shape));
  ASSERT_EQ(f.size(), 256u);
  EXPECT_EQ(le(f, 8, 2), 246u);
  EXPECT_EQ(f.find_last_not_of(' ', 254), 254u - 64u - 20u);  // '}' then growth + padding
}

TEST(Npy, Bf16WrittenAsFloat32) {
  const float vals[4] = {1.0f, -2.5f, 3.140625f, 1e30f};
  uint16_t bf[4];
  for (int i = 0; i < 4; ++i) bf[i] = float_to_bf16(vals[i]);
  std::string f = encode_npy(view(bf, DType::kBFloat16, {2, 2}));
  ASSERT_EQ(f.size(), 128u + 16u);
  for (int i = 0; i < 4; ++i) {
    float got;
    std::memcpy(&got, f.data() + 128 + 4 * i, 4);
    EXPECT_EQ(got, bf16_to_float(bf[i]));
  }
}

TEST(Npy, NonContiguousInLogicalOrder) {
  int32_t data[6] = {0, 1, 2, 3, 4, 5};  // 2x3, viewed transposed as 3x2
  std::string f = encode_npy(view(data, DType::kInt32, {3, 2}, {1, 3}));
  const int32_t want[6] = {0, 3, 1, 4, 2, 5};
  ASSERT_EQ(f.size(), 128u + 24u);
  EXPECT_EQ(std::memcmp(f.data() + 128, want, 24), 0);
  EXPECT_NE(f.find("'shape': (3, 2), }"), std::string::npos);
}

// ----------------------------------------------------------------------------------------- pt

TEST(Pt, LayoutMatchesTorchSave) {
  float data[6] = {0, 1, 2, 3, 4, 5};
  std::string z = encode_pt(view(data, DType::kFloat32, {2, 3}), "a", false);
  std::vector<ZipEntryInfo> es = parse_zip(z);
  ASSERT_EQ(es.size(), 7u);
  const char* names[] = {"a/data.pkl", "a/.format_version", "a/.storage_alignment",    "a/byteorder",
                         "a/data/0",   "a/version",         "a/.data/serialization_id"};
  // Header offsets torch 2.13's torch.save(t, "a.pt") produces for this tensor.
  const uint64_t offsets[] = {0, 234, 337, 466, 534, 616, 722};
  for (size_t i = 0; i < 7; ++i) {
    EXPECT_EQ(es[i].name, names[i]);
    EXPECT_EQ(es[i].header_offset, offsets[i]) << names[i];
    EXPECT_EQ(es[i].data_offset % 64, 0u) << names[i];
  }
  EXPECT_EQ(entry_data(z, es[0]), BIN(kPickle2x3));
  EXPECT_EQ(entry_data(z, es[1]), "1");
  EXPECT_EQ(entry_data(z, es[2]), "64");
  EXPECT_EQ(entry_data(z, es[3]), "little");
  EXPECT_EQ(entry_data(z, es[4]), std::string(reinterpret_cast<char*>(data), 24));
  EXPECT_EQ(entry_data(z, es[5]), "3\n");
  const std::string id = entry_data(z, es[6]);
  EXPECT_EQ(id.size(), 40u);
  EXPECT_EQ(id.find_first_not_of("0123456789"), std::string::npos);
  EXPECT_EQ(z.size(), 0x57fu);  // torch's file size for this tensor
}

TEST(Pt, EmptyTensorHasNoDescriptor) {
  std::string z = encode_pt(view(nullptr, DType::kFloat32, {0, 3}), "e", false);
  std::vector<ZipEntryInfo> es = parse_zip(z);
  ASSERT_EQ(es.size(), 7u);
  const uint64_t offsets[] = {0, 234, 337, 466, 534, 576, 658};
  for (size_t i = 0; i < 7; ++i) EXPECT_EQ(es[i].header_offset, offsets[i]) << es[i].name;
  EXPECT_EQ(es[4].size, 0u);
  EXPECT_EQ(es[4].flags, 0x0800);
  const std::string pkl = entry_data(z, es[0]);
  EXPECT_NE(pkl.find(BIN("cpuq\x04K\x00tq\x05QK\x00K\x00K\x03\x86q\x06K\x03K\x01\x86")), std::string::npos);
}

TEST(Pt, PickleScalarsLargeShapesAndFlags) {
  double x = 3.5;
  std::string z = encode_pt(view(&x, DType::kFloat64, {}), "s", true);
  std::string pkl = entry_data(z, parse_zip(z)[0]);
  // 0-d: empty size and stride tuples, requires_grad True.
  EXPECT_NE(pkl.find("ctorch\nDoubleStorage\n"), std::string::npos);
  EXPECT_NE(pkl.find(BIN("K\x01tq\x05QK\x00))\x88")), std::string::npos);

  // Integer dtypes never record requires_grad (torch.load would refuse it).
  int64_t i = 7;
  z = encode_pt(view(&i, DType::kInt64, {}), "s", true);
  pkl = entry_data(z, parse_zip(z)[0]);
  EXPECT_NE(pkl.find(BIN("))\x89")), std::string::npos);

  // More than three dims: MARK ... TUPLE; ints of 1, 4 and (LONG1) 5 bytes; as torch writes them.
  std::vector<char> flags(2 * 70000, 1);
  z = encode_pt(view(flags.data(), DType::kBool, {2, 70000, 1, 1}), "b", false);
  pkl = entry_data(z, parse_zip(z)[0]);
  EXPECT_EQ(pkl, BIN("\x80\x02"
                     "ctorch._utils\n_rebuild_tensor_v2\nq\x00((X\x07\x00\x00\x00storageq\x01"
                     "ctorch\n"
                     "BoolStorage\nq\x02X\x01\x00\x00\x00"
                     "0q\x03X\x03\x00\x00\x00"
                     "cpuq\x04J\xe0\"\x02\x00tq\x05"
                     "QK\x00(K\x02Jp\x11\x01\x00K\x01K\x01tq\x06(Jp\x11\x01\x00K\x01K\x01K\x01tq\x07\x89"
                     "ccollections\nOrderedDict\nq\x08)Rq\ttq\nRq\x0b."));
  z = encode_pt(view(nullptr, DType::kFloat32, {0, 3000000000LL}), "e", false);
  pkl = entry_data(z, parse_zip(z)[0]);
  EXPECT_NE(pkl.find(BIN("QK\x00K\x00\x8a\x05\x00^\xd0\xb2\x00\x86q\x06\x8a\x05\x00^\xd0\xb2\x00K\x01\x86")),
            std::string::npos);
}

TEST(Pt, NonContiguousAndLargeDataCrc) {
  // 600x700 int16 viewed transposed: runs of one element; crosses several CRC blocks.
  std::vector<int16_t> a(600 * 700);
  std::iota(a.begin(), a.end(), (int16_t)-1000);
  std::string z = encode_pt(view(a.data(), DType::kInt16, {700, 600}, {1, 700}), "t", false);
  std::vector<ZipEntryInfo> es = parse_zip(z);  // checks the CRC of every entry
  ASSERT_EQ(es.size(), 7u);
  const std::string d = entry_data(z, es[4]);
  ASSERT_EQ(d.size(), a.size() * 2);
  for (int r = 0; r < 700; r += 37) {
    for (int c = 0; c < 600; c += 41) {
      int16_t got;
      std::memcpy(&got, d.data() + 2 * (r * 600 + c), 2);
      EXPECT_EQ(got, a[c * 700 + r]);
    }
  }
  std::string pkl = entry_data(z, es[0]);
  EXPECT_NE(pkl.find("ctorch\nShortStorage\n"), std::string::npos);
  EXPECT_NE(pkl.find(BIN("J\xa0\x68\x06\x00tq\x05QK\x00M\xbc\x02M\x58\x02\x86q\x06M\x58\x02K\x01\x86")),
            std::string::npos);

  // A big contiguous float tensor: many CRC blocks.
  std::vector<float> big(3 * 1000 * 1000 + 7);
  for (size_t k = 0; k < big.size(); ++k) big[k] = (float)k * 0.5f;
  z = encode_pt(view(big.data(), DType::kFloat32, {(int64_t)big.size()}), "big", false);
  es = parse_zip(z);
  EXPECT_EQ(entry_data(z, es[4]), std::string(reinterpret_cast<char*>(big.data()), big.size() * 4));
}

TEST(Pt, ArchiveNameValidated) {
  float x = 1;
  EXPECT_THROW(encode_pt(view(&x, DType::kFloat32, {1}), "", false), InvalidInput);
  EXPECT_THROW(encode_pt(view(&x, DType::kFloat32, {1}), "a/b", false), InvalidInput);
  EXPECT_NO_THROW(encode_pt(view(&x, DType::kFloat32, {1}), "Functional.conv2d.0.forward.input.0", false));
}

// ---------------------------------------------------------------------------------------- zip

TEST(Zip, Zip64FieldsWhenSizesAndOffsetsReachTheLimit) {
  // A lowered limit makes small archives use the zip64 forms a > 4 GiB file uses.
  StoredZipWriter zw(64, 250);
  const std::string a(150, 'a'), b(300, 'b'), c = "c";
  zw.add_entry("x/a", a.size());  // below the limit, offset 0
  zw.add_entry("x/b", b.size());  // size over the limit
  zw.add_entry("x/c", c.size());  // offset over the limit
  zw.add_entry("x/empty", 0);     // offset over the limit, no data
  std::string z(zw.total_size(), '\0');
  const std::string* datas[] = {&a, &b, &c, nullptr};
  for (size_t i = 0; i < 4; ++i) {
    if (!datas[i]) continue;
    std::memcpy(&z[zw.data_offset(i)], datas[i]->data(), datas[i]->size());
    zw.set_crc(i, ref_crc32(datas[i]->data(), datas[i]->size()));
  }
  zw.write_structure(&z[0]);
  std::vector<ZipEntryInfo> es = parse_zip(z);
  ASSERT_EQ(es.size(), 4u);
  EXPECT_EQ(entry_data(z, es[0]), a);
  EXPECT_EQ(entry_data(z, es[1]), b);
  EXPECT_EQ(entry_data(z, es[2]), c);
  EXPECT_EQ(es[3].size, 0u);
  for (const ZipEntryInfo& e : es) EXPECT_EQ(e.data_offset % 64, 0u) << e.name;
  EXPECT_EQ(es[0].local_extra.substr(0, 2), "FB");
  // Local zip64 field: sizes (uncompressed, then 0) for b; the header offset for c.
  EXPECT_EQ(le(es[1].local_extra, 0, 2), 1u);
  EXPECT_EQ(le(es[1].local_extra, 2, 2), 16u);
  EXPECT_EQ(le(es[1].local_extra, 4, 8), 300u);
  EXPECT_EQ(le(es[2].local_extra, 2, 2), 8u);
  EXPECT_EQ(le(es[2].local_extra, 4, 8), es[2].header_offset);
  // The end record points into zip64 for the central directory offset.
  EXPECT_EQ(le(z, z.size() - 22 + 16, 4), 0xFFFFFFFFu);
}

TEST(Zip, AlignmentOfEveryEntry) {
  for (uint64_t align : {1u, 16u, 64u, 4096u}) {
    StoredZipWriter zw(align);
    for (int i = 0; i < 20; ++i) zw.add_entry("n/" + std::string(i + 1, 'k'), (uint64_t)(i * 7));
    for (size_t i = 0; i < zw.entry_count(); ++i) EXPECT_EQ(zw.data_offset(i) % align, 0u);
    std::string z(zw.total_size(), 'x');
    for (size_t i = 0; i < zw.entry_count(); ++i) {
      zw.set_crc(i, ref_crc32(z.data() + zw.data_offset(i), (size_t)(i * 7)));
    }
    zw.write_structure(&z[0]);
    EXPECT_EQ(parse_zip(z).size(), 20u);
  }
  EXPECT_THROW(StoredZipWriter(0), InvalidInput);
  StoredZipWriter zw;
  EXPECT_THROW(zw.add_entry("", 1), InvalidInput);
}

}  // namespace
}  // namespace msprobe
