// The report's data and page: column encodings, tree building, verdicts, and the rendered page.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include "../src/report/report_json.h"
#include "../src/report/report_page.h"
#include "msprobe/base/error.h"
#include "msprobe/format/json_value.h"
#include "msprobe/report/check_report.h"
#include "msprobe/report/compare_report.h"
#include "msprobe/report/dump_report.h"

namespace msprobe {
namespace report {
namespace {

using compare::Cell;
using compare::CompareTable;

std::vector<uint8_t> decode_base64(const std::string& s) {
  auto val = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    return c == '+' ? 62 : c == '/' ? 63 : -1;
  };
  std::vector<uint8_t> out;
  uint32_t acc = 0;
  int bits = 0;
  for (char c : s) {
    int v = val(c);
    if (v < 0) break;
    acc = acc << 6 | (uint32_t)v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back((uint8_t)(acc >> bits));
    }
  }
  return out;
}

template <typename T>
std::vector<T> typed(const JsonValue& v) {
  std::vector<uint8_t> b = decode_base64(v.as_string());
  std::vector<T> out(b.size() / sizeof(T));
  std::memcpy(out.data(), b.data(), out.size() * sizeof(T));
  return out;
}

TEST(ReportJson, Base64MatchesRfc4648) {
  std::string out;
  append_base64(out, "foobar", 6);
  append_base64(out, "fooba", 5);
  append_base64(out, "foob", 4);
  EXPECT_EQ(out, "\"Zm9vYmFy\"\"Zm9vYmE=\"\"Zm9vYg==\"");
}

TEST(ReportJson, StringsCannotCloseTheScriptTag) {
  std::string out;
  append_html_json_string(out, "a</script><b>\xc3\xa9");
  EXPECT_EQ(out.find('<'), std::string::npos);
  EXPECT_EQ(parse_json(out, "t").as_string(), "a</script><b>\xc3\xa9");
}

TEST(ReportJson, NumericColumnKeepsNonNumbersAsExceptions) {
  std::vector<std::vector<Cell>> rows = {
      {Cell::num(1.5)}, {Cell::str("N/A")}, {Cell::num(1e300)}, {Cell::num(NAN)}, {Cell::num(-2)}};
  std::vector<std::string> names(rows.size(), "x");
  std::string out;
  append_table_column(out, "Max diff", rows, 0, names);
  JsonValue col = parse_json(out, "t");
  EXPECT_EQ(col.find("enc")->as_string(), "f32");
  std::vector<float> v = typed<float>(*col.find("data"));
  ASSERT_EQ(v.size(), 5u);
  EXPECT_EQ(v[0], 1.5f);
  EXPECT_TRUE(std::isnan(v[3]));
  EXPECT_EQ(v[4], -2.0f);
  std::vector<uint32_t> exc_rows = typed<uint32_t>(*col.find("excRows"));
  std::vector<uint32_t> exc_vals = typed<uint32_t>(*col.find("excValues"));
  ASSERT_EQ(exc_rows, (std::vector<uint32_t>{1, 2}));  // "N/A" and the number beyond float32
  const auto& exc = col.find("exc")->as_array();
  EXPECT_EQ(exc[exc_vals[0]].as_string(), "N/A");
  EXPECT_DOUBLE_EQ(exc[exc_vals[1]].as_double(), 1e300);
}

TEST(ReportJson, PercentColumnsAreNumbers) {
  std::vector<std::vector<Cell>> rows = {{Cell::str("12.5%")}, {Cell::str("0.001%")}, {Cell::str("N/A")}};
  std::vector<std::string> names(rows.size(), "x");
  std::string out;
  append_table_column(out, "MaxRelativeErr", rows, 0, names);
  JsonValue col = parse_json(out, "t");
  EXPECT_TRUE(col.find("pct")->as_bool());
  std::vector<float> v = typed<float>(*col.find("data"));
  EXPECT_FLOAT_EQ(v[0], 12.5f);
  EXPECT_FLOAT_EQ(v[1], 0.001f);
}

TEST(ReportJson, StringColumnIsADictionaryRelativeToTheRowName) {
  std::vector<std::vector<Cell>> rows = {
      {Cell::str("A.forward.input.0")}, {Cell::str("A.forward.output.0")}, {Cell::str("N/A")}};
  std::vector<std::string> names = {"A.forward.input.0", "A.forward.output.0", "B.forward.input.0"};
  std::string out;
  append_table_column(out, "Bench Name", rows, 0, names);
  JsonValue col = parse_json(out, "t");
  EXPECT_EQ(col.find("enc")->as_string(), "dict");
  const auto& dict = col.find("dict")->as_array();
  ASSERT_EQ(dict.size(), 2u);  // "same as the row's name" and "N/A"
  EXPECT_EQ(dict[0].as_string(), std::string(1, '\0'));
  std::vector<uint8_t> idx = typed<uint8_t>(*col.find("data"));
  EXPECT_EQ(idx, (std::vector<uint8_t>{0, 0, 1}));
}

// A small compare table: Module.m.forward.0 holds Torch.a.0.forward; the module's backward
// holds the parameters_grad; Torch.b.0.forward is unmatched.
CompareTable small_table() {
  CompareTable t;
  t.header = {"NPU Name", "Bench Name", "NPU max", "Bench max", "NPU l2norm", "Bench l2norm", "Result"};
  auto row = [&](const std::string& n, const std::string& b, double x, double y, const char* res) {
    t.rows.push_back(
        {Cell::str(n), Cell::str(b), Cell::num(x), Cell::num(y), Cell::num(x), Cell::num(y), Cell::str(res)});
    t.fills.push_back(compare::Fill::kNone);
  };
  row("Torch.a.0.forward.input.0", "Torch.a.0.forward.input.0", 1, 1, "");
  row("Torch.a.0.forward.output.0", "Torch.a.0.forward.output.0", 2, 1, "Warning");
  row("Module.m.M.forward.0.output.0", "Module.m.M.forward.0.output.0", 2, 2, "");
  row("Torch.b.0.forward.output.0", "N/A", 3, 3, "");
  row("Module.m.M.parameters_grad.weight", "Module.m.M.parameters_grad.weight", 1, 1, "");
  row("Module.m.M.backward.0.output.0", "Module.m.M.backward.0.output.0", 1, 1, "");
  t.fills[5] = compare::Fill::kRed;
  return t;
}

struct Parsed {
  JsonValue doc;
  const JsonValue& part() const { return doc.find("parts")->as_array()[0]; }
  const JsonValue& entries() const { return *part().find("entries"); }
  int index(const std::string& name) const {
    const auto& names = entries().find("names")->as_array();
    for (size_t i = 0; i < names.size(); ++i)
      if (names[i].as_string() == name) return (int)i;
    return -1;
  }
};

Parsed page_json(const CompareTable& t, const std::vector<std::pair<std::string, std::string>>* construct) {
  ReportInput in;
  in.runs = {{"NPU", "a", "pytorch", "mix", "statistics"}, {"Bench", "b", "pytorch", "mix", "statistics"}};
  RankInput r;
  r.table = &t;
  r.construct = construct;
  in.ranks.push_back(r);
  std::string html = render_compare_report(in);
  size_t start = html.find("id=\"msprobe-data\" type=\"application/json\">");
  EXPECT_NE(start, std::string::npos);
  start = html.find('>', start) + 1;
  size_t end = html.find("</script>", start);
  return Parsed{parse_json(html.substr(start, end - start), "page")};
}

TEST(ReportPage, TreeFollowsConstructAndPutsGradientsUnderTheBackwardCall) {
  CompareTable t = small_table();
  std::vector<std::pair<std::string, std::string>> construct = {{"Module.m.M.forward.0", ""},
                                                                {"Torch.a.0.forward", "Module.m.M.forward.0"},
                                                                {"Module.m.M.backward.0", ""}};
  Parsed p = page_json(t, &construct);
  const JsonValue& e = p.entries();
  std::vector<int32_t> parent = typed<int32_t>(*e.find("parent"));
  int mod = p.index("Module.m.M.forward.0"), a = p.index("Torch.a.0.forward");
  int grad = p.index("Module.m.M.parameters_grad"), bwd = p.index("Module.m.M.backward.0");
  ASSERT_GE(mod, 0);
  ASSERT_GE(grad, 0);
  EXPECT_EQ(parent[a], mod);
  EXPECT_EQ(parent[grad], bwd);
  EXPECT_EQ(parent[mod], -1);
  // Root children in construct order, the construct-less Torch.b last.
  std::vector<int32_t> cs = typed<int32_t>(*e.find("childStart"));
  std::vector<int32_t> ch = typed<int32_t>(*e.find("children"));
  int n = (int)e.find("n")->as_int();
  std::vector<int32_t> roots(ch.begin() + cs[n], ch.begin() + cs[n + 1]);
  EXPECT_EQ(roots, (std::vector<int32_t>{mod, bwd, p.index("Torch.b.0.forward")}));
  // Verdicts: warning from Result, error from the red fill, unmatched from Bench Name N/A; the
  // module's subtree carries its child's warning.
  std::vector<uint8_t> v = typed<uint8_t>(*e.find("verdict"));
  std::vector<uint8_t> sub = typed<uint8_t>(*e.find("subtree"));
  EXPECT_EQ(v[a], kWarning);
  EXPECT_EQ(v[bwd], kError);
  EXPECT_EQ(v[p.index("Torch.b.0.forward")], kUnmatched);
  EXPECT_EQ(v[mod], kPass);
  EXPECT_EQ(sub[mod], kWarning);
  const JsonValue& counts = *p.doc.find("counts")->find("rows");
  EXPECT_EQ(counts.find("warning")->as_int(), 1);
  EXPECT_EQ(counts.find("error")->as_int(), 1);
  EXPECT_EQ(counts.find("unmatched")->as_int(), 1);
  EXPECT_EQ(counts.find("pass")->as_int(), 3);
}

TEST(ReportPage, CyclicConstructStillShowsEveryNode) {
  CompareTable t = small_table();
  std::vector<std::pair<std::string, std::string>> construct = {
      {"Module.m.M.forward.0", "Torch.a.0.forward"}, {"Torch.a.0.forward", "Module.m.M.forward.0"}};
  Parsed p = page_json(t, &construct);
  std::vector<int32_t> ch = typed<int32_t>(*p.entries().find("children"));
  EXPECT_EQ((int64_t)ch.size(), p.entries().find("n")->as_int());  // each node exactly once
}

TEST(ReportPage, PageIsSelfContained) {
  CompareTable t = small_table();
  t.rows[0][0] = Cell::str("Torch.a.0.forward.input.0");
  ReportInput in;
  in.title = "t<itle>";
  RankInput r;
  r.table = &t;
  in.ranks.push_back(r);
  std::string html = render_compare_report(in);
  EXPECT_EQ(html.find("/*@"), std::string::npos);  // every slot filled
  EXPECT_NE(html.find("Dygraph"), std::string::npos);
  EXPECT_NE(html.find("Permission is hereby granted"), std::string::npos);
  EXPECT_EQ(html.find("t<itle>"), std::string::npos);
  EXPECT_EQ(html.find("src=\"http"), std::string::npos);  // nothing fetched from the network
  EXPECT_EQ(html.find("url(http"), std::string::npos);
  EXPECT_EQ(html.find("<script src"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
}

TEST(ReportPage, NoRankIsAnError) {
  ReportInput in;
  EXPECT_THROW(render_compare_report(in), InvalidInput);
}

TEST(DumpReport, InfInAnOutputIsAnErrorAndInAnInputAWarning) {
  char tmpl[] = "/tmp/msprobe_report_testXXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  std::string dir = tmpl;
  std::ofstream(dir + "/dump.json")
      << R"({"task": "statistics", "level": "L1", "framework": "pytorch", "dump_data_dir": null, "data": {
 "Torch.log.0.forward": {"input_args": [{"type": "torch.Tensor", "dtype": "torch.float32", "shape": [2], "Max": 1.0, "Min": 0.0, "Mean": 0.5, "Norm": 1.0, "requires_grad": false}, {"type": "bool", "value": false}], "input_kwargs": {}, "output": [{"type": "torch.Tensor", "dtype": "torch.float32", "shape": [2], "Max": 0.0, "Min": -Infinity, "Mean": -Infinity, "Norm": Infinity, "requires_grad": false}]},
 "Torch.exp.0.forward": {"input_args": [{"type": "torch.Tensor", "dtype": "torch.float32", "shape": [2], "Max": 0.0, "Min": -Infinity, "Mean": -Infinity, "Norm": Infinity, "requires_grad": false}], "input_kwargs": {}, "output": [{"type": "torch.Tensor", "dtype": "torch.float32", "shape": [2], "Max": 1.0, "Min": 0.0, "Mean": 0.5, "Norm": 1.0, "requires_grad": false}]}
}})";
  std::string html = render_dump_report(dir);
  size_t start = html.find('>', html.find("id=\"msprobe-data\"")) + 1;
  JsonValue doc = parse_json(html.substr(start, html.find("</script>", start) - start), "page");
  const JsonValue& e = *doc.find("parts")->as_array()[0].find("entries");
  std::vector<uint8_t> v = typed<uint8_t>(*e.find("verdict"));
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0], kError);    // Torch.log.0.forward: -inf out of finite inputs
  EXPECT_EQ(v[1], kWarning);  // Torch.exp.0.forward: inf only in its input
  EXPECT_EQ(doc.find("kind")->as_string(), "dump");
  std::remove((dir + "/dump.json").c_str());
  rmdir(dir.c_str());
  EXPECT_THROW(render_dump_report(dir), FileError);
}

}  // namespace
}  // namespace report
}  // namespace msprobe

namespace msprobe {
namespace report {
namespace {

TEST(CheckReport, PathBesideTheDetailsCsv) {
  EXPECT_EQ(check_report_path("out/accuracy_checking_details_20250101000000.csv"),
            "out/accuracy_checking_report_20250101000000.html");
  EXPECT_EQ(check_report_path("a/api_precision_compare_details_1.csv"),
            "a/api_precision_compare_report_1.html");
  EXPECT_EQ(check_report_path("details_dir/x.csv"), "details_dir/x.html");
}

TEST(CheckReport, StatusesBecomeVerdictsAndApisGroupTheirDirections) {
  char tmpl[] = "/tmp/msprobe_check_testXXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  std::string csv = std::string(tmpl) + "/accuracy_checking_details_1.csv";
  std::ofstream(csv)
      << "\xEF\xBB\xBF"
         "API Name,Bench Dtype,DEVICE Dtype,Shape,余弦相似度,最大绝对误差,相对误差最大值,Status,Message\n"
         "Functional.linear.0.forward.output.0,torch.float64,torch.float32,\"(4, 6)\",1.0,0.5, ,pass,\n"
         "Functional.linear.0.backward.output.0,torch.float64,torch.float32,\"(4, "
         "6)\",0.9,0.1,0.25,error,bad\n"
         "Torch.matmul.0.forward.output.0, , , , , , ,SKIP,no bench\n";
  std::string html = render_check_report(csv);
  size_t start = html.find('>', html.find("id=\"msprobe-data\"")) + 1;
  JsonValue doc = parse_json(html.substr(start, html.find("</script>", start) - start), "page");
  EXPECT_EQ(doc.find("kind")->as_string(), "check");
  const JsonValue& part = doc.find("parts")->as_array()[0];
  const JsonValue& e = *part.find("entries");
  const auto& names = e.find("names")->as_array();
  std::vector<uint8_t> v = typed<uint8_t>(*e.find("verdict"));
  std::vector<int32_t> parent = typed<int32_t>(*e.find("parent"));
  std::vector<float> value = typed<float>(*e.find("value"));
  auto at = [&](const std::string& n) {
    for (size_t i = 0; i < names.size(); ++i)
      if (names[i].as_string() == n) return (int)i;
    return -1;
  };
  int fwd = at("Functional.linear.0.forward"), bwd = at("Functional.linear.0.backward");
  int api = at("Functional.linear.0");
  ASSERT_GE(api, 0);
  EXPECT_EQ(parent[fwd], api);
  EXPECT_EQ(parent[bwd], api);
  EXPECT_EQ(v[fwd], kPass);
  EXPECT_EQ(v[bwd], kError);
  EXPECT_EQ(v[api], kError);                               // the API takes its worst direction
  EXPECT_EQ(v[at("Torch.matmul.0.forward")], kUnmatched);  // SKIP, shown as "skipped"
  EXPECT_FLOAT_EQ(value[fwd], 0.5f);                       // no max relative error: the max absolute error
  EXPECT_FLOAT_EQ(value[bwd], 0.25f);                      // the max relative error
  bool cosine_titled = false;                              // Chinese metric names get an English title
  for (const JsonValue& c : part.find("rows")->find("columns")->as_array())
    if (c.find("name")->as_string() == "余弦相似度")
      cosine_titled = c.find("label") && c.find("label")->as_string() == "cosine";
  EXPECT_TRUE(cosine_titled);
  std::remove(csv.c_str());
  rmdir(tmpl);
  std::ofstream(std::string("/tmp/msprobe_not_details.csv")) << "a,b\n1,2\n";
  EXPECT_THROW(render_check_report("/tmp/msprobe_not_details.csv"), InvalidInput);
  std::remove("/tmp/msprobe_not_details.csv");
}

}  // namespace
}  // namespace report
}  // namespace msprobe
