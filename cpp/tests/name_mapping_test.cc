// The MindSpore compare name mappings (-am/-cm/-dm) give the keys 1.2.1 gives. Expected keys
// follow 1.2.1's ms_compare.py; the end-to-end check against the original's output is in
// tests/test_compare_name_mapping.py (fixtures tests/fixtures/compare_1.2.1/xf_*).
#include <gtest/gtest.h>

#include "msprobe/base/error.h"
#include "msprobe/compare/name_mapping.h"
#include "test_files.h"

namespace msprobe {
namespace compare {
namespace {

TEST(NameMappingPyReplace, MatchesPythonStrReplace) {
  EXPECT_EQ(py_replace("Mint.Mint.x", "Mint", "Torch"), "Torch.Torch.x");
  EXPECT_EQ(py_replace("Mint.Mint.x", "Mint", "Torch", 1), "Torch.Mint.x");
  EXPECT_EQ(py_replace("abc", "", "x"), "abc");
  EXPECT_EQ(py_replace("aaa", "aa", "b"), "ba");
}

TEST(NameMappingApiName, FirstTwoParts) {
  EXPECT_EQ(api_name_of("Mint.tanh.0.forward.input.0"), "Mint.tanh");
  EXPECT_EQ(api_name_of("Tensor.__add__"), "Tensor.__add__");
  EXPECT_THROW(api_name_of("nodots"), InvalidInput);
}

ApiMapper builtin_only() {
  return ApiMapper({{"Functional.abs", "Torch.abs"},
                    {"Functional.dense", "Functional.linear"},
                    {"Tensor.add", "Tensor.add"}},
                   {});
}

TEST(NameMappingApi, MintAndMintFunctionalByRule) {
  ApiMapper m = builtin_only();
  m.prepare({}, {});
  EXPECT_EQ(m.npu_key("Mint.tanh.0.forward.input.0"), "Torch.tanh.0.forward.input.0");
  EXPECT_EQ(m.npu_key("MintFunctional.linear.3.backward.output.2"), "Functional.linear.3.backward.output.2");
  EXPECT_TRUE(m.maps_names());
}

TEST(NameMappingApi, BuiltinTableReplacesEveryOccurrence) {
  ApiMapper m = builtin_only();
  m.prepare({}, {});
  EXPECT_EQ(m.npu_key("Functional.dense.0.forward.input.0"), "Functional.linear.0.forward.input.0");
  EXPECT_EQ(m.npu_key("Functional.abs.1.forward.output.0"), "Torch.abs.1.forward.output.0");
  // unlisted APIs, cells and Primitive rows keep their names
  EXPECT_EQ(m.npu_key("Functional.gelu.0.forward.input.0"), "Functional.gelu.0.forward.input.0");
  EXPECT_EQ(m.npu_key("Cell.fc1.Dense.forward.0.input.0"), "Cell.fc1.Dense.forward.0.input.0");
}

UserApiMapping add_swapped() {
  UserApiMapping u;
  u.ms_api = "Tensor.__add__";
  u.pt_api = "Tensor.__add__";
  u.ms_args = {"0", "1"};
  u.pt_args = {"1", "0"};
  u.ms_output = {"0"};
  u.pt_output = {"0"};
  return u;
}

TEST(NameMappingApi, UserTableRemapsIndices) {
  ApiMapper user({}, {add_swapped()});
  std::vector<std::string> npu = {"Tensor.__add__.0.forward.input.0", "Tensor.__add__.0.forward.input.1",
                                  "Tensor.__add__.0.forward.output.0", "Tensor.__add__.0.backward.input.0",
                                  "Mint.tanh.0.forward.input.0"};
  user.prepare(npu, {"Tensor.__add__.0.forward.input.0", "Torch.tanh.0.forward.input.0"});
  EXPECT_EQ(user.npu_key(npu[0]), "Tensor.__add__.0.forward.input.1");
  EXPECT_EQ(user.npu_key(npu[1]), "Tensor.__add__.0.forward.input.0");
  EXPECT_EQ(user.npu_key(npu[2]), "Tensor.__add__.0.forward.output.0");
  EXPECT_EQ(user.npu_key(npu[3]), "Tensor.__add__.0.backward.input.1");
  // rows of other APIs still get the built-in rule
  EXPECT_EQ(user.npu_key(npu[4]), "Torch.tanh.0.forward.input.0");
}

TEST(NameMappingApi, UserRowWithoutListedIndexIsAbandoned) {
  UserApiMapping u = add_swapped();
  u.ms_args = {"0"};
  u.pt_args = {"0"};
  ApiMapper m({}, {u});
  m.prepare({"Tensor.__add__.0.forward.input.1"}, {"Tensor.__add__.0.forward.input.0"});
  EXPECT_EQ(m.npu_key("Tensor.__add__.0.forward.input.1"), "Tensor.__add__.0.forward.input.1abandoned");
}

TEST(NameMappingApi, UserEntryNeedsTheBenchApiAndEqualLengths) {
  UserApiMapping absent = add_swapped();
  absent.pt_api = "Torch.add";  // the bench has no Torch.add rows: entry ignored
  UserApiMapping uneven = add_swapped();
  uneven.ms_api = "Mint.tanh";
  uneven.pt_output = {};
  ApiMapper m({}, {absent, uneven});
  m.prepare({"Tensor.__add__.0.forward.input.0", "Mint.tanh.0.forward.output.0"},
            {"Tensor.__add__.0.forward.input.0", "Torch.tanh.0.forward.output.0"});
  EXPECT_EQ(m.npu_key("Tensor.__add__.0.forward.input.0"), "Tensor.__add__.0.forward.input.0");
  EXPECT_EQ(m.npu_key("Mint.tanh.0.forward.output.0"), "Torch.tanh.0.forward.output.0");
  ASSERT_EQ(m.skipped_entries().size(), 1u);
  EXPECT_EQ(m.skipped_entries()[0], "Mint.tanh");
}

TEST(NameMappingApi, PrefixMatchesAndLastMatchWins) {
  UserApiMapping u;
  u.ms_api = "Functional.f";
  u.pt_api = "Torch.f";
  u.ms_args = {"1", "10"};  // "10" starts with "1" as well: both rewrite, the last one wins
  u.pt_args = {"2", "3"};
  ApiMapper m({}, {u});
  m.prepare({"Functional.f.0.forward.input.10"}, {"Torch.f.0.forward.input.0"});
  EXPECT_EQ(m.npu_key("Functional.f.0.forward.input.10"), "Torch.f.0.forward.input.3");
}

TEST(NameMappingCell, CellBecomesModuleAndTableMapsPathAndClass) {
  CellMapper m({{"fc1.Dense", "fc1.Linear"}, {"scale.Scale", "affine.Affine"}});
  EXPECT_EQ(m.npu_key("Cell.fc1.Dense.forward.0.input.0"), "Module.fc1.Linear.forward.0.input.0");
  EXPECT_EQ(m.npu_key("Cell.scale.Scale.backward.0.output.0"), "Module.affine.Affine.backward.0.output.0");
  EXPECT_EQ(m.npu_key("Cell.scale.Scale.parameters_grad.weight"),
            "Module.affine.Affine.parameters_grad.weight");
  EXPECT_EQ(m.npu_key("Cell.block.Block.forward.0.output.0"), "Module.block.Block.forward.0.output.0");
  // APIs keep their names; names without a phase get "N/A"
  EXPECT_EQ(m.npu_key("MintFunctional.linear.0.forward.input.0"), "MintFunctional.linear.0.forward.input.0");
  EXPECT_EQ(m.npu_key("Cell.fc1.Dense.something"), "N/A");
  EXPECT_EQ(m.npu_key(""), "N/A");
}

TEST(NameMappingCell, WithoutTableOnlyTheFirstCellIsRenamed) {
  CellMapper m({});
  EXPECT_EQ(m.npu_key("Cell.Cell.Cell.forward.0.input.0"), "Module.Cell.Cell.forward.0.input.0");
}

TEST(NameMappingData, PairsInOrder) {
  DataMapper m({{"b", "x"}, {"a", "y"}});
  ASSERT_NE(m.data_mapping(), nullptr);
  EXPECT_EQ((*m.data_mapping())[0].first, "b");
  EXPECT_EQ((*m.data_mapping())[1].second, "y");
  EXPECT_FALSE(m.maps_names());
}

}  // namespace
}  // namespace compare
}  // namespace msprobe

// -lm against the original: 1.2.1 wrote the data mapping it derived from the golden
// MindSpore-vs-PyTorch dumps (tests/fixtures/compare_1.2.1/xf_mix_statistics/lm*/data_mapping.yaml).
#include <fstream>

namespace msprobe {
namespace compare {
namespace {

std::string fixture_dir() {
  return std::string(msprobe::test::source_dir()) + "/tests/fixtures/compare_1.2.1/xf_mix_statistics";
}

std::vector<std::pair<std::string, std::string>> yaml_pairs(const std::string& path) {
  std::ifstream f(path);
  std::vector<std::pair<std::string, std::string>> out;
  std::string line;
  while (std::getline(f, line)) {
    size_t sep = line.find(": ");
    if (sep != std::string::npos) out.push_back({line.substr(0, sep), line.substr(sep + 2)});
  }
  return out;
}

TEST(NameMappingLayer, MatchesTheOriginalsDataMapping) {
  const std::string dir = fixture_dir();
  const std::string npu = dir + "/npu/step0/rank/dump.json", bench = dir + "/bench/step0/rank/dump.json";
  LayerMapper with_table(npu, bench, {{"TopLayer", {{"scale", "affine"}}}});
  auto expected = yaml_pairs(dir + "/lm/data_mapping.yaml");
  ASSERT_GT(expected.size(), 100u);
  EXPECT_EQ(*with_table.data_mapping(), expected);

  LayerMapper plain(npu, bench, {});
  EXPECT_EQ(*plain.data_mapping(), yaml_pairs(dir + "/lm_plain/data_mapping.yaml"));
  // without the table the "scale" cell finds no "affine" module
  bool unmatched = false;
  for (const auto& [n, b] : plain.entry_mapping())
    if (n == "Cell.scale.Scale.forward.0") unmatched = b == "N/A";
  EXPECT_TRUE(unmatched);
  // a "Cell" table is the root's table
  LayerMapper cell_key(npu, bench, {{"Cell", {{"scale", "affine"}}}});
  EXPECT_EQ(*cell_key.data_mapping(), expected);
}

TEST(NameMappingLayer, MissingFilesAreOneLineErrors) {
  EXPECT_THROW(LayerMapper("/nonexistent/dump.json", "/nonexistent/dump.json", {}), FileError);
}

}  // namespace
}  // namespace compare
}  // namespace msprobe
