// TensorStore: confinement of data names to the dump folder, .pt and .npy read in place, and the
// tensor files of golden dumps (1.2.1's .pt and MindSpore .npy, ours) matching their dump.json
// records (dtype, shape, Max and Min recomputed from the mapped data).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "msprobe/base/error.h"
#include "msprobe/format/npy_writer.h"
#include "msprobe/format/pt_reader.h"
#include "msprobe/format/pt_writer.h"
#include "msprobe/reader/dump_json_reader.h"
#include "msprobe/reader/tensor_store.h"
#include "test_files.h"

namespace msprobe {
namespace reader {
namespace {

using test::temp_dir;
using test::write_file;

std::string error_of(const TensorStore& s, const std::string& name) {
  try {
    s.load(name);
  } catch (const FileError& e) {
    return e.what();
  }
  return "<no error>";
}

TEST(ReaderTensorStore, LoadsPtAndNpyInPlace) {
  const std::string dir = temp_dir("reader_store");
  std::vector<float> v{1, 2, 3, 4, 5, 6};
  TensorView t;
  t.data = v.data();
  t.shape = {2, 3};
  write_file(dir + "/a.pt", encode_pt(t, "a", true));
  write_file(dir + "/a.npy", encode_npy(t));
  TensorStore store(dir + "/");
  for (const char* name : {"a.pt", "a.npy"}) {
    LoadedTensor l = store.load(name);
    EXPECT_EQ(l.dtype, DType::kFloat32);
    EXPECT_EQ(l.shape, (std::vector<int64_t>{2, 3}));
    EXPECT_EQ(l.strides, (std::vector<int64_t>{3, 1}));
    EXPECT_EQ(l.requires_grad, std::string(name) == "a.pt");
    const TensorView view = l.view();
    ASSERT_EQ(view.nbytes(), 24u);
    EXPECT_EQ(std::memcmp(view.data, v.data(), 24), 0);
    EXPECT_EQ(l.path.substr(l.path.size() - std::strlen(name)), name);
    // The mapping is copy-on-write: writing through the view never reaches the file.
    const_cast<float*>(static_cast<const float*>(view.data))[0] = 42.0f;
    EXPECT_EQ(static_cast<const float*>(store.load(name).view().data)[0], 1.0f);
  }
  // Fortran-ordered .npy gets column-major strides.
  std::string header = "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }";
  header.resize(118 - 1, ' ');
  write_file(dir + "/f.npy",
             std::string("\x93NUMPY\x01\x00\x76\x00", 10) + header + "\n" + std::string(24, '\0'));
  LoadedTensor f = store.load("f.npy");
  EXPECT_EQ(f.strides, (std::vector<int64_t>{1, 2}));
}

TEST(ReaderTensorStore, ConfinesNamesToTheFolder) {
  const std::string root = temp_dir("reader_store");
  const std::string dir = root + "/dump_tensor_data";
  ::mkdir(dir.c_str(), 0750);
  std::vector<int64_t> v{7};
  TensorView t;
  t.data = v.data();
  t.dtype = DType::kInt64;
  t.shape = {1};
  write_file(root + "/secret.pt", encode_pt(t, "secret", false));
  write_file(dir + "/in.pt", encode_pt(t, "in", false));
  ASSERT_EQ(::symlink((root + "/secret.pt").c_str(), (dir + "/escape.pt").c_str()), 0);
  ASSERT_EQ(::symlink("in.pt", (dir + "/alias.pt").c_str()), 0);
  ASSERT_EQ(::symlink("..", (dir + "/up").c_str()), 0);
  TensorStore store(dir);
  auto refused = [&](const std::string& name, const std::string& why) {
    const std::string e = error_of(store, name);
    EXPECT_NE(e.find(why), std::string::npos) << name << ": " << e;
    EXPECT_EQ(e.find('\n'), std::string::npos);
  };
  refused("../secret.pt", "refused: only a plain file name inside");
  refused(root + "/secret.pt", "refused: only a plain file name inside");
  refused("up/secret.pt", "refused: only a plain file name inside");
  refused("..", "refused");
  refused("", "refused");
  refused("escape.pt", "outside");
  refused("missing.pt", "tensor file not found: " + dir + "/missing.pt");
  refused("in.txt", "tensor file not found");
  write_file(dir + "/in.txt", "x");
  refused("in.txt", "is not a pt or numpy file");
  // A link that stays inside the folder is followed.
  EXPECT_EQ(static_cast<const int64_t*>(store.load("alias.pt").view().data)[0], 7);
  // A file the C++ reader does not read: PtUnsupported (a FileError) naming the file.
  write_file(dir + "/legacy.pt", std::string("\x80\x02\x8a\x0a", 4) + "not a zip");
  try {
    store.load("legacy.pt");
    FAIL();
  } catch (const PtUnsupported& e) {
    EXPECT_NE(std::string(e.what()).find(dir + "/legacy.pt: not a single-tensor torch.save file"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(store.resolve("legacy.pt"), store.resolve("legacy.pt"));
  EXPECT_THROW(store.resolve("escape.pt"), FileError);
}

// Every tensor file present in a golden dump loads with its record's dtype and shape, and for
// float32 its Max and Min recomputed from the mapped data equal the recorded ones.
size_t check_dump(const std::string& rel_dump_json) {
  const std::string path = std::string(msprobe::test::source_dir()) + rel_dump_json;
  DumpJsonReader r(path);
  TensorStore store(r.header().tensor_dir());
  size_t loaded = 0;
  std::function<void(const JsonValue&)> visit = [&](const JsonValue& v) {
    if (v.is_array()) {
      for (const auto& x : v.as_array()) visit(x);
      return;
    }
    if (!v.is_object()) return;
    const JsonValue* name = v.find("data_name");
    if (!name || !name->is_string()) {
      for (const auto& kv : v.as_object()) visit(kv.second);
      return;
    }
    if (::access((store.dir() + "/" + name->as_string()).c_str(), F_OK) != 0) return;  // not checked in
    SCOPED_TRACE(name->as_string());
    LoadedTensor t = store.load(name->as_string());
    ++loaded;
    const std::string dtype = v.find("dtype")->as_string();
    EXPECT_TRUE(dtype == torch_dtype_name(t.dtype) || dtype == mindspore_dtype_name(t.dtype)) << dtype;
    std::vector<int64_t> shape;
    for (const auto& d : v.find("shape")->as_array()) shape.push_back(d.as_int());
    EXPECT_EQ(t.shape, shape);
    if (t.dtype == DType::kFloat32 && t.view().numel() > 0 && !std::isnan(v.find("Max")->as_double())) {
      std::vector<float> vals((size_t)t.view().numel());
      t.view().copy_contiguous(vals.data());
      EXPECT_EQ((double)*std::max_element(vals.begin(), vals.end()), v.find("Max")->as_double());
      EXPECT_EQ((double)*std::min_element(vals.begin(), vals.end()), v.find("Min")->as_double());
    }
  };
  r.for_each_entry([&](std::string_view, const JsonValue& rec) { visit(rec); });
  return loaded;
}

TEST(ReaderTensorStore, GoldenDumpsMatchTheirRecords) {
  EXPECT_GE(check_dump("/tests/fixtures/original_1.2.1/mix_tensor/step0/rank/dump.json"), 3u);
  EXPECT_GE(check_dump("/tests/fixtures/original_1.2.1_mindspore/mix_tensor/step0/rank/dump.json"), 50u);
  EXPECT_GE(check_dump("/tests/fixtures/run_ut_1.2.1/dump/dump.json"), 300u);
}

}  // namespace
}  // namespace reader
}  // namespace msprobe
