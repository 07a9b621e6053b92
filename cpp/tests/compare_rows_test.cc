// compare's row building as 1.2.1 does it: leaf naming (read_op), name/state parsing, the ordered
// two-queue matching, statistics differences and verdicts, the MindSpore join, highlight rules,
// and the Python/pandas text the table must hold.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "compare/mapping/mapped_match.h"
#include "compare/matching/dump_mode.h"
#include "compare/matching/joined_match.h"
#include "compare/matching/merged_op.h"
#include "compare/matching/op_items.h"
#include "compare/matching/ordered_match.h"
#include "compare/matching/result_rows.h"
#include "compare/matching/summary_diff.h"
#include "compare/metrics/highlight.h"
#include "msprobe/base/error.h"
#include "msprobe/compare/compare_const.h"
#include "msprobe/format/pandas_numeric.h"
#include "msprobe/format/py_value.h"
#include "msprobe/format/xlsx_writer.h"

using namespace msprobe;
using namespace msprobe::compare;

namespace {

JsonValue js(const std::string& text) { return parse_json(text, "test"); }

std::string tensor(const char* dtype, const char* shape, double mx, double mn, double mean, double norm) {
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "{\"type\": \"torch.Tensor\", \"dtype\": \"%s\", \"shape\": %s, \"Max\": %.17g, "
                "\"Min\": %.17g, \"Mean\": %.17g, \"Norm\": %.17g, \"requires_grad\": false}",
                dtype, shape, mx, mn, mean, norm);
  return buf;
}

std::string t32(double v = 1.0, const char* shape = "[4]") {
  return tensor("torch.float32", shape, v, -v, v / 2, v * 2);
}

ParsedEntry entry(const std::string& name, const std::string& record_json) {
  ParsedEntry e;
  e.op.entry = name;
  auto items = read_op(js(record_json), name);
  if (!items.empty()) e.op = merge_items(name, std::move(items));
  return e;
}

std::string api(const std::string& in, const std::string& out) {
  return "{\"input_args\": [" + in + "], \"input_kwargs\": {}, \"output\": [" + out + "]}";
}

ParsedDump dump(std::vector<ParsedEntry> entries, const char* task = "statistics") {
  ParsedDump d;
  d.task = task;
  d.entries = std::move(entries);
  return d;
}

std::vector<std::string> col(const std::vector<Row>& rows, size_t c) {
  std::vector<std::string> out;
  for (const auto& r : rows) out.push_back(cell_str(r.at(c)));
  return out;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Names

TEST(CompareNames, NameAndState) {
  NameState a = get_name_and_state("Functional.conv2d.0.forward.input.0");
  EXPECT_EQ(a.api, "Functional.conv2d.0.forward.");
  EXPECT_EQ(a.state, State::kInput);
  NameState m = get_name_and_state("Module.fc1.Linear.forward.0.output.1");
  EXPECT_EQ(m.api, "Module.fc1.Linear.forward.0.");
  EXPECT_EQ(m.state, State::kOutput);
  EXPECT_EQ(get_name_and_state("Functional.linear.4.forward.kwargs.weight").state, State::kKwargs);
  EXPECT_EQ(get_name_and_state("Module.fc.Linear.forward.0.parameters.bias").state, State::kParams);
  NameState g = get_name_and_state("Module.fc.Linear.parameters_grad.weight");
  EXPECT_EQ(g.api, "Module.fc.Linear.");
  EXPECT_EQ(g.state, State::kParamsGrad);
  EXPECT_THROW(get_name_and_state("Functional.conv2d.0.input.0"), InvalidInput);
  EXPECT_THROW(get_name_and_state("Functional.x.0.forward.grad.0"), InvalidInput);
}

TEST(CompareNames, ReadOpNamesLeavesAs121) {
  const JsonValue rec =
      js("{\"input_args\": [" + t32() + ", [" + t32() +
         ", {\"type\": \"int\", \"value\": 3}], null, [],"
         " {\"type\": \"torch.Size\", \"value\": [2, 3]}, {\"type\": \"slice\", \"value\": [1, null, 2]}],"
         " \"input_kwargs\": {\"weight\": " +
         t32() +
         ", \"flag\": {\"type\": \"bool\", \"value\": true}},"
         " \"output\": [" +
         t32() + "], \"parameters\": {\"bias\": " + t32() + "}}");
  auto items = read_op(rec, "Functional.f.0.forward");
  std::vector<std::string> names;
  for (const auto& i : items) names.push_back(i.full_op_name);
  EXPECT_EQ(names, (std::vector<std::string>{
                       "Functional.f.0.forward.input.0", "Functional.f.0.forward.input.1.0",
                       "Functional.f.0.forward.input.1.1", "Functional.f.0.forward.input.2",
                       "Functional.f.0.forward.input.4", "Functional.f.0.forward.input.5",
                       "Functional.f.0.forward.input.weight", "Functional.f.0.forward.input.flag",
                       "Functional.f.0.forward.output.0", "Functional.f.0.forward.parameters.bias"}));
  // scalar: str(type(value)), shape "[]", the value as every statistic, crc32 of str(value)
  EXPECT_EQ(py_str(items[2].dtype), "<class 'int'>");
  EXPECT_EQ(py_str(items[2].shape), "[]");
  EXPECT_EQ(py_str(items[2].stats[0]), "3");
  EXPECT_EQ(py_str(items[2].md5), "6dd28e9b");  // zlib.crc32(b"3")
  // None: every field None, no md5
  EXPECT_TRUE(items[3].dtype.is_null());
  EXPECT_TRUE(items[3].md5.is_null());
  EXPECT_EQ(items[3].data_name, "-1");
  EXPECT_EQ(py_str(items[4].dtype), "torch.Size");
  EXPECT_EQ(py_str(items[4].shape), "[2, 3]");
  EXPECT_EQ(py_str(items[5].shape), "(3,)");
  EXPECT_EQ(py_str(items[7].md5), "5dcee3b3");  // zlib.crc32(b"True")
}

TEST(CompareNames, DataNameGivesTheRowName) {
  auto items = read_op(js("{\"input_args\": [{\"type\": \"torch.Tensor\", \"dtype\": \"torch.float32\","
                          " \"shape\": [2], \"data_name\": \"X.0.forward.kwargs.w.pt\"}]}"),
                       "X.0.forward");
  ASSERT_EQ(items.size(), 1u);
  EXPECT_EQ(items[0].full_op_name, "X.0.forward.kwargs.w");
  EXPECT_EQ(items[0].data_name, "X.0.forward.kwargs.w.pt");
}

TEST(CompareNames, ParametersGradKeepsOneName) {
  auto items = read_op(js("{\"weight\": [" + t32() + "], \"bias\": [" + t32() + "]}"),
                       "Module.fc.Linear.parameters_grad");
  ASSERT_EQ(items.size(), 2u);
  EXPECT_EQ(items[0].full_op_name, "Module.fc.Linear.parameters_grad.weight");
  EXPECT_EQ(items[1].full_op_name, "Module.fc.Linear.parameters_grad.bias");
}

TEST(CompareNames, RecursionLimit) {
  std::string deep = t32();
  for (int i = 0; i < 12; ++i) deep = "[" + deep + "]";
  EXPECT_THROW(read_op(js("{\"input_args\": [" + deep + "]}"), "X.0.forward"), InvalidInput);
}

TEST(CompareNames, FormulaInjectionBlacklist) {
  EXPECT_TRUE(is_blacklisted_string("-1"));
  EXPECT_TRUE(is_blacklisted_string("=SUM(A1)"));
  EXPECT_TRUE(is_blacklisted_string("a;@b"));
  EXPECT_TRUE(
      is_blacklisted_string("\xEF\xBC\x8B"
                            "x"));  // full-width plus
  EXPECT_FALSE(is_blacklisted_string("a-b"));
  EXPECT_FALSE(is_blacklisted_string("torch.float32"));
  EXPECT_THROW(check_entry_name("@api"), InvalidInput);
  EXPECT_THROW(check_entry_strings(js("{\"input_args\": [{\"type\": \"str\", \"value\": \"+x\"}]}"), "X"),
               InvalidInput);
  EXPECT_THROW(check_entry_strings(js("{\"output\": [{\"type\": \"t\", \"shape\": 3}]}"), "X"), InvalidInput);
  EXPECT_THROW(check_entry_strings(js("{\"output\": [{\"type\": \"t\", \"requires_grad\": 1}]}"), "X"),
               InvalidInput);
  EXPECT_NO_THROW(
      check_entry_strings(js("{\"parameters\": {\"w\": {\"type\": \"str\", \"value\": \"-x\"}}}"), "X"));
  EXPECT_THROW(check_stack_strings(js("{\"a\": 1}"), "X"), InvalidInput);
}

TEST(CompareNames, ReorderPutsParametersBeforeOutputs) {
  MergedOp op =
      entry("M.forward.0", api(t32(1), t32(2)).substr(0, 0) + "{\"input_args\": [" + t32(1) +
                               "], \"output\": [" + t32(2) + "], \"parameters\": {\"w\": " + t32(3) + "}}")
          .op;
  std::vector<std::string> order;
  for (size_t i : reordered_leaves(op)) order.push_back(op.op_name[i]);
  EXPECT_EQ(order, (std::vector<std::string>{"M.forward.0.input.0", "M.forward.0.parameters.w",
                                             "M.forward.0.output.0"}));
}

// ---------------------------------------------------------------------------------------------
// Python / pandas text

TEST(ComparePythonText, ReprAndStr) {
  EXPECT_EQ(py_float_repr(1.0), "1.0");
  EXPECT_EQ(py_float_repr(1e-05), "1e-05");
  EXPECT_EQ(py_float_repr(1e16), "1e+16");
  EXPECT_EQ(py_float_repr(123456789.125), "123456789.125");
  EXPECT_EQ(py_str_repr("it's"), "\"it's\"");
  EXPECT_EQ(py_str_repr("a\nb'\"\\"), "'a\\nb\\'\"\\\\'");
  EXPECT_EQ(py_str(js("[1, 2.5, null, true, \"x\", {\"k\": [1]}]")), "[1, 2.5, None, True, 'x', {'k': [1]}]");
  EXPECT_TRUE(py_equal(js("[4, 8]"), js("[4.0, 8]")));
  EXPECT_FALSE(py_equal(js("[4, 8]"), js("\"[4, 8]\"")));
  EXPECT_EQ(np_shape_str(js("[[1, 2], [3, 4], [5, 6]]")), "(3, 2)");
  EXPECT_EQ(np_shape_str(js("7")), "()");
  EXPECT_THROW(np_shape_str(js("[[1], 2]")), InvalidInput);
}

TEST(ComparePythonText, WrittenCells) {
  EXPECT_EQ(written_cell(Cell::num(NAN)).s, "nan\t");
  EXPECT_EQ(written_cell(Cell::num(-INFINITY)).s, "-inf\t");
  EXPECT_EQ(written_cell(Cell::boolean(true)).s, "True");
  EXPECT_EQ(written_cell(Cell::empty()).s, "None");
  EXPECT_EQ(written_cell(Cell::str("inf")).s, "inf\t");
  EXPECT_TRUE(written_cell(Cell::num(1.5)).is_number());
}

TEST(ComparePandasNumeric, ParsesAsPandas20) {
  // at most 17 digits, leading zeros included: the last digit of these is dropped
  EXPECT_EQ(pandas_to_numeric("0.00651592972722763").value, 0.0065159297272276);
  EXPECT_EQ(pandas_to_numeric("0.06958328667684435").value, 0.0695832866768443);
  // one division by a power of ten, not correctly rounded
  EXPECT_EQ(pandas_to_numeric("9.221885624698875e-05").value, 9.221885624698876e-05);
  EXPECT_TRUE(pandas_to_numeric("12").is_int);
  EXPECT_FALSE(pandas_to_numeric("12.0").is_int);
  // exponents past int wrap as in pandas 2.0.3 on x86 (values read from pd.to_numeric)
  EXPECT_EQ(pandas_to_numeric("1e4294967296").value, 1.0);
  EXPECT_EQ(pandas_to_numeric("1e4294967297").value, 10.0);
  EXPECT_EQ(pandas_to_numeric("1e2147483648").value, 0.0);
  EXPECT_FALSE(pandas_to_numeric("1e-2147483649").ok);
  EXPECT_EQ(pandas_to_numeric("1e-4294967000").value, 1e296);
  EXPECT_FALSE(pandas_to_numeric("1e12345678901234567").ok);
  EXPECT_EQ(pandas_to_numeric("1e-12345678901234567").value, 0.0);
  EXPECT_TRUE(std::isinf(pandas_to_numeric("-inf").value));
  EXPECT_FALSE(pandas_to_numeric("nan").ok);
  EXPECT_FALSE(pandas_to_numeric("N/A").ok);
  EXPECT_FALSE(pandas_to_numeric("True").ok);
}

// ---------------------------------------------------------------------------------------------
// Statistics rows

TEST(CompareSummaryDiff, DiffsRelativeErrorsAndWarning) {
  Row row(22, Cell::str(" "));
  const std::array<JsonValue, 4> n{js("2.0"), js("1"), js("0.5"), js("true")};
  const std::array<JsonValue, 4> b{js("1.0"), js("0"), js("0.5"), js("true")};
  EXPECT_TRUE(apply_summary_diff(row, n, b));  // Min: |1-0| / (1 + 1e-10) > 0.5
  EXPECT_EQ(cell_str(row[6]), "1.0");
  EXPECT_EQ(cell_str(row[10]), "100.0%");
  EXPECT_EQ(cell_str(row[7]), "1");     // int - int stays an int
  EXPECT_EQ(cell_str(row[11]), "N/A");  // bench 0
  EXPECT_EQ(cell_str(row[12]), "0.0%");
  EXPECT_EQ(cell_str(row[9]), "N/A");  // bools are not numbers
  EXPECT_EQ(cell_str(row[13]), "N/A");
}

TEST(CompareSummaryDiff, NanAndInf) {
  Row row(22, Cell::str(" "));
  row[14] = Cell::num(INFINITY);
  const std::array<JsonValue, 4> n{js("Infinity"), js("NaN"), js("1.0"), js("1.0")};
  const std::array<JsonValue, 4> b{js("1.0"), js("1.0"), js("1.0"), js("1.0")};
  EXPECT_FALSE(apply_summary_diff(row, n, b));  // inf / (inf + eps) is NaN: no warning
  EXPECT_EQ(row[6].s, "inf\t");
  EXPECT_EQ(row[10].s, "inf%");
  EXPECT_EQ(row[7].s, "Nan");
  EXPECT_EQ(row[11].s, "Nan");
  EXPECT_EQ(row[14].s, "inf\t");  // statistics cells get the tab too
}

TEST(CompareSummaryDiff, WarningOnAnyStatistic) {
  Row row(22, Cell::str(" "));
  const std::array<JsonValue, 4> n{js("1.0"), js("1.0"), js("1.0"), js("3.0")};
  const std::array<JsonValue, 4> b{js("1.0"), js("1.0"), js("1.0"), js("1.0")};
  EXPECT_TRUE(apply_summary_diff(row, n, b));  // |3-1| / 3 > 0.5
}

TEST(CompareRows, MatchedAndUnmatchedStatisticsRows) {
  ParsedEntry n = entry("Torch.a.0.forward", api(t32(3.0), t32(4.0)));  // |3-1| / 3 > 0.5
  ParsedEntry b = entry("Torch.a.0.forward", api(t32(1.0), t32(4.0)));
  std::vector<Row> rows;
  append_matched_rows(rows, n.op, b.op, CompareMode::kStatistics);
  append_unmatched_rows(rows, n.op, CompareMode::kStatistics);
  finish_rows(rows, CompareMode::kStatistics, false);
  ASSERT_EQ(rows.size(), 4u);
  ASSERT_EQ(rows[0].size(), mode_header(CompareMode::kStatistics).size());
  EXPECT_EQ(cell_str(rows[0][22]), "Warning");
  EXPECT_EQ(cell_str(rows[0][23]), "Need double check api accuracy.");
  EXPECT_EQ(cell_str(rows[1][22]), "");
  EXPECT_EQ(cell_str(rows[2][1]), "N/A");
  EXPECT_EQ(cell_str(rows[2][22]), "N/A");
  EXPECT_EQ(cell_str(rows[2][23]), "No bench data matched.");
}

TEST(CompareRows, StackGoesOnTheFirstInputRow) {
  ParsedEntry n = entry("Torch.a.0.forward", api(t32() + ", " + t32(), t32()));
  n.op.has_stack = true;
  const JsonValue stack = js("[\"File a.py, line 1, in f, \\n x\"]");
  n.op.stack = &stack;
  ParsedEntry b = n;
  std::vector<Row> rows;
  append_matched_rows(rows, n.op, b.op, CompareMode::kMd5);
  finish_rows(rows, CompareMode::kMd5, true);
  EXPECT_EQ(col(rows, 9), (std::vector<std::string>{"['File a.py, line 1, in f, \\n x']", "None", "None"}));
  EXPECT_EQ(col(rows, 8), (std::vector<std::string>{"pass", "pass", "pass"}));
}

TEST(CompareRows, TensorRowsCarryTheDataName) {
  ParsedEntry n = entry("T.a.0.forward",
                        "{\"input_args\": [{\"type\": \"torch.Tensor\", \"dtype\": "
                        "\"torch.float32\", \"shape\": [2], \"Max\": NaN, \"Min\": 1, "
                        "\"Mean\": 1, \"Norm\": 1, \"data_name\": \"T.a.0.forward.input.0.pt\"}]}");
  std::vector<Row> rows;
  append_matched_rows(rows, n.op, n.op, CompareMode::kTensor);
  append_unmatched_rows(rows, n.op, CompareMode::kTensor);
  finish_rows(rows, CompareMode::kTensor, false);
  ASSERT_EQ(rows[0].size(), table_header(CompareMode::kTensor, false).size());
  EXPECT_EQ(rows[0].back().s, "T.a.0.forward.input.0.pt");
  EXPECT_EQ(rows[0][11].s, "Nan");         // matched: NaN statistic shown as "Nan"
  EXPECT_TRUE(std::isnan(rows[1][11].d));  // unmatched: kept as the float NaN
  EXPECT_EQ(rows[1].back().s, "-1");
}

// ---------------------------------------------------------------------------------------------
// Ordered matching

TEST(CompareOrderedMatch, RenameAndFuzzyNames) {
  EXPECT_EQ(rename_api("Functional.conv2d.0.forward.input.0", "forward"), "Functional.conv2d.input.0");
  EXPECT_EQ(rename_api("Module.l1.Linear.forward.0.input.0", "forward"), "Module.l1.0.input.0");
  EXPECT_TRUE(fuzzy_same_names({"Torch.a.3.forward.input.0"}, {"Torch.a.7.forward.input.0"}));
  EXPECT_FALSE(fuzzy_same_names({"Torch.a.3.forward.input.0"}, {"Torch.b.3.forward.input.0"}));
  EXPECT_FALSE(fuzzy_same_names({"Torch.a.3.forward.input.0"}, {}));
}

TEST(CompareOrderedMatch, DtypeGroups) {
  EXPECT_TRUE(dtypes_compatible(js("\"torch.float16\""), js("\"torch.bfloat16\"")));
  EXPECT_TRUE(dtypes_compatible(js("\"Float32\""), js("\"Float16\"")));
  EXPECT_TRUE(dtypes_compatible(js("\"torch.float32\""), js("\"torch.bfloat16\"")));
  EXPECT_TRUE(dtypes_compatible(js("\"Float64\""), js("\"BFloat16\"")));
  EXPECT_FALSE(dtypes_compatible(js("\"torch.float32\""), js("\"torch.int32\"")));
  EXPECT_FALSE(dtypes_compatible(js("\"torch.int64\""), js("\"torch.int32\"")));
  ParsedEntry a = entry("T.a.0.forward", api(tensor("torch.float16", "[4]", 1, 1, 1, 1), t32()));
  ParsedEntry b = entry("T.a.0.forward", api(t32(), t32()));
  EXPECT_TRUE(same_struct(a.op, b.op, CompareMode::kStatistics));
  ParsedEntry c = entry("T.a.0.forward", api(t32(1, "[2]"), t32()));
  EXPECT_FALSE(same_struct(a.op, c.op, CompareMode::kStatistics));
  // no inputs: only an exact struct matches
  ParsedEntry d =
      entry("T.d.0.forward", "{\"output\": [" + tensor("torch.float16", "[4]", 1, 1, 1, 1) + "]}");
  ParsedEntry e = entry("T.d.0.forward", "{\"output\": [" + t32() + "]}");
  EXPECT_FALSE(same_struct(d.op, e.op, CompareMode::kStatistics));
}

TEST(CompareOrderedMatch, ExtraBenchOpIsSkipped) {
  ParsedDump n = dump({entry("T.a.0.forward", api(t32(), t32())), entry("T.b.0.forward", api(t32(), t32()))});
  ParsedDump b = dump({entry("T.a.0.forward", api(t32(), t32())), entry("T.x.0.forward", api(t32(), t32())),
                       entry("T.b.0.forward", api(t32(), t32()))});
  std::vector<Row> rows;
  ordered_match(n, b, {}, rows);
  EXPECT_EQ(col(rows, 1), (std::vector<std::string>{"T.a.0.forward.input.0", "T.a.0.forward.output.0",
                                                    "T.b.0.forward.input.0", "T.b.0.forward.output.0"}));
}

TEST(CompareOrderedMatch, ExtraNpuOpIsUnmatched) {
  ParsedDump n = dump({entry("T.a.0.forward", api(t32(), t32())), entry("T.x.0.forward", api(t32(), t32())),
                       entry("T.b.0.forward", api(t32(), t32()))});
  ParsedDump b = dump({entry("T.a.0.forward", api(t32(), t32())), entry("T.b.0.forward", api(t32(), t32()))});
  std::vector<Row> rows;
  ordered_match(n, b, {}, rows);
  EXPECT_EQ(col(rows, 0)[2], "T.x.0.forward.input.0");
  EXPECT_EQ(col(rows, 1),
            (std::vector<std::string>{"T.a.0.forward.input.0", "T.a.0.forward.output.0", "N/A", "N/A",
                                      "T.b.0.forward.input.0", "T.b.0.forward.output.0"}));
}

TEST(CompareOrderedMatch, SwappedOpsLeaveOneUnmatched) {
  // step 1 queues npu a / bench b (no match); step 2 queues npu b / bench a: the newest npu (b)
  // matches the queued bench b, so the npu a queued before it is reported unmatched
  ParsedDump n = dump({entry("T.a.0.forward", api(t32(), t32())), entry("T.b.0.forward", api(t32(), t32()))});
  ParsedDump b = dump({entry("T.b.0.forward", api(t32(), t32())), entry("T.a.0.forward", api(t32(), t32()))});
  std::vector<Row> rows;
  ordered_match(n, b, {}, rows);
  EXPECT_EQ(col(rows, 0), (std::vector<std::string>{"T.a.0.forward.input.0", "T.a.0.forward.output.0",
                                                    "T.b.0.forward.input.0", "T.b.0.forward.output.0"}));
  EXPECT_EQ(col(rows, 1),
            (std::vector<std::string>{"N/A", "N/A", "T.b.0.forward.input.0", "T.b.0.forward.output.0"}));
}

TEST(CompareOrderedMatch, EmptyEntryStopsTheRead) {
  // 1.2.1 stops when one queue is empty and the other is not: nothing after it is compared
  ParsedDump n = dump({entry("T.e.0.forward", "{\"input_args\": [], \"output\": []}"),
                       entry("T.a.0.forward", api(t32(), t32()))});
  ParsedDump b = dump({entry("T.a.0.forward", api(t32(), t32()))});
  std::vector<Row> rows;
  ordered_match(n, b, {}, rows);
  EXPECT_TRUE(rows.empty());
}

TEST(CompareOrderedMatch, FuzzyMatchesOtherCallCounts) {
  ParsedDump n = dump({entry("T.a.0.forward", api(t32(), t32()))});
  ParsedDump b = dump({entry("T.a.5.forward", api(t32(), t32()))});
  std::vector<Row> rows;
  ordered_match(n, b, {}, rows);
  EXPECT_EQ(col(rows, 1)[0], "N/A");
  rows.clear();
  OrderedMatchOptions fuzzy;
  fuzzy.fuzzy = true;
  ordered_match(n, b, fuzzy, rows);
  EXPECT_EQ(col(rows, 1)[0], "T.a.5.forward.input.0");
}

TEST(CompareOrderedMatch, ErrorsAreRaisedWhenTheEntryIsRead) {
  ParsedDump n = dump({entry("T.a.0.forward", api(t32(), t32()))});
  ParsedEntry bad;
  bad.error = "x: api name contains special characters, please check!";
  n.entries.push_back(bad);
  ParsedDump b = dump({entry("T.a.0.forward", api(t32(), t32()))});
  std::vector<Row> rows;
  EXPECT_THROW(ordered_match(n, b, {}, rows), InvalidInput);
}

// ---------------------------------------------------------------------------------------------
// Modes

TEST(CompareModes, DetectedFromTaskAndMd5) {
  ParsedDump a = dump({}), b = dump({});
  EXPECT_EQ(detect_mode(a, b), CompareMode::kStatistics);
  a.has_md5 = b.has_md5 = true;
  EXPECT_EQ(detect_mode(a, b), CompareMode::kMd5);
  b.has_md5 = false;
  EXPECT_THROW(detect_mode(a, b), InvalidInput);
  a.task = b.task = "tensor";
  EXPECT_EQ(detect_mode(a, b), CompareMode::kTensor);
  b.task = "statistics";
  EXPECT_THROW(detect_mode(a, b), InvalidInput);
  a.task = "";
  EXPECT_THROW(detect_mode(a, b), InvalidInput);
  a.task = b.task = "overflow_check";
  EXPECT_THROW(detect_mode(a, b), InvalidInput);
}

// ---------------------------------------------------------------------------------------------
// MindSpore join and data mapping

TEST(CompareJoinedMatch, GroupsByKeyAndShape) {
  auto ms = [](const char* dtype, const char* shape, double v) { return tensor(dtype, shape, v, v, v, v); };
  ParsedDump n = dump({entry("F.a.0.forward", api(ms("Float32", "[4]", 2), ms("Float32", "[4]", 0))),
                       entry("F.b.0.forward", api(ms("Float32", "[2]", 1), ms("Float32", "[3]", 1)))});
  ParsedDump b = dump({entry("F.b.0.forward", api(ms("Int32", "[2]", 1), ms("Float32", "[5]", 1))),
                       entry("F.a.0.forward", api(ms("Float32", "[4]", 1), ms("Float32", "[4]", 0)))});
  std::vector<Row> rows;
  JoinedMatchOptions opt;
  joined_match(n, b, opt, rows);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(col(rows, 1), (std::vector<std::string>{"F.a.0.forward.input.0", "F.a.0.forward.output.0", "N/A",
                                                    "N/A"}));  // Float32 vs Int32; [3] vs [5]
  EXPECT_EQ(cell_str(rows[0][6]), "1.0");
  EXPECT_EQ(cell_str(rows[0][10]), "100.0%");
  EXPECT_EQ(cell_str(rows[1][10]), "Nan");  // bench 0: "Nan", not "N/A" as in PyTorch
  EXPECT_EQ(cell_str(rows[2][23]), "No bench data matched.");
  EXPECT_EQ(cell_str(rows[2][22]), "N/A");
  EXPECT_EQ(cell_str(rows[0][22]), "");  // one statistic over the threshold is not enough
}

TEST(CompareMappedMatch, RowsInMappingOrder) {
  ParsedDump n = dump({entry("T.a.0.forward", api(t32(2), t32(3)))});
  ParsedDump b = dump({entry("T.z.0.forward", api(t32(1), t32(3)))});
  std::vector<Row> rows;
  mapped_match(n, b,
               {{"T.a.0.forward.output.0", "T.z.0.forward.output.0"},
                {"T.a.0.forward.input.0", "N/A"},
                {"T.missing.0.forward.input.0", "T.z.0.forward.input.0"}},
               CompareMode::kStatistics, rows);
  finish_rows(rows, CompareMode::kStatistics, false);
  EXPECT_EQ(col(rows, 0), (std::vector<std::string>{"T.a.0.forward.output.0", "T.a.0.forward.input.0"}));
  EXPECT_EQ(cell_str(rows[1][18]), "N/A");
  EXPECT_EQ(cell_str(rows[1][6]), "N/A");
}

// ---------------------------------------------------------------------------------------------
// Highlight

namespace {

CompareTable tensor_table(const std::vector<std::vector<double>>& metrics,
                          const std::vector<std::string>& names) {
  // metrics per row: cosine, max_abs_err, one_thousandth, npu max, bench max
  CompareTable t;
  t.mode = CompareMode::kTensor;
  t.header = table_header(CompareMode::kTensor, false);
  for (size_t i = 0; i < names.size(); ++i) {
    Row r(t.header.size(), Cell::str(""));
    r[0] = Cell::str(names[i]);
    r[header_index(t.mode, k::kCosine)] = Cell::num(metrics[i][0]);
    r[header_index(t.mode, k::kMaxAbsErr)] = Cell::num(metrics[i][1]);
    r[header_index(t.mode, k::kOneThousandth)] = Cell::num(metrics[i][2]);
    r[header_index(t.mode, k::kNpuMax)] = Cell::num(metrics[i][3]);
    r[header_index(t.mode, k::kNpuMin)] = Cell::num(0);
    r[header_index(t.mode, k::kBenchMax)] = Cell::num(metrics[i][4]);
    t.rows.push_back(r);
  }
  return t;
}

std::string err(const CompareTable& t, size_t r) {
  return t.rows[r][header_index(t.mode, k::kErrorMessage)].s;
}

}  // namespace

TEST(CompareHighlight, OneThousandthRed) {
  CompareTable t = tensor_table({{1, 0, 1, 1, 1}, {1, 0.1, 0.5, 1, 1}},
                                {"A.a.0.forward.input.0", "A.a.0.forward.output.0"});
  apply_highlight(t);
  EXPECT_EQ(t.fills, (std::vector<Fill>{Fill::kNone, Fill::kRed}));
  EXPECT_EQ(err(t, 1),
            "The input/parameters's one thousandth err ratio exceeds 0.9, while the output's is below 0.6");
}

TEST(CompareHighlight, YellowRulesAndRepeatedMessages) {
  // two inputs, one output: the cosine drop is reported once per input row
  CompareTable t = tensor_table({{1, 2, 0.5, 1, 1}, {1, 2, 0.5, 1, 1}, {0.8, 50, 0.45, 1, 1}},
                                {"A.a.0.forward.input.0", "A.a.0.forward.input.1", "A.a.0.forward.output.0"});
  apply_highlight(t);
  EXPECT_EQ(t.fills[2], Fill::kYellow);
  const std::string mag =
      "maximum absolute error of both input/parameters and output exceed 1, with the output larger "
      "by an order of magnitude";
  const std::string cos = "The output's cosine decreases by more than 0.1 compared to the input/parameters's";
  EXPECT_EQ(err(t, 2), mag + "\n" + cos + "\n" + mag + "\n" + cos);
}

TEST(CompareHighlight, OverflowAndHugeErrorAreRed) {
  CompareTable t = tensor_table({{1, 0, 1, INFINITY, 1}, {1, 2e10, 1, 1, 1}},
                                {"A.a.0.forward.input.0", "B.b.0.forward.input.0"});
  t.rows[0][header_index(t.mode, k::kErrorMessage)] = Cell::str("earlier");
  apply_highlight(t);
  EXPECT_EQ(t.fills, (std::vector<Fill>{Fill::kRed, Fill::kRed}));
  EXPECT_EQ(err(t, 0), "earlier\nmaximum or minimum is nan, -inf, or inf");
  EXPECT_EQ(err(t, 1), "maximum absolute error exceeds 1e+10");
}

TEST(CompareHighlight, StatisticsMaxRelativeDiff) {
  CompareTable t;
  t.mode = CompareMode::kStatistics;
  t.header = table_header(t.mode, false);
  for (double diff : {0.001, 0.6}) {
    Row r(t.header.size(), Cell::str(""));
    r[0] = Cell::str(diff < 0.1 ? "A.a.0.forward.input.0" : "A.a.0.forward.output.0");
    r[header_index(t.mode, k::kMaxDiff)] = Cell::num(diff);
    r[header_index(t.mode, k::kNpuMax)] = Cell::num(1);
    r[header_index(t.mode, k::kNpuMin)] = Cell::num(0);
    r[header_index(t.mode, k::kBenchMax)] = Cell::num(1);
    t.rows.push_back(r);
  }
  apply_highlight(t);
  EXPECT_EQ(t.fills, (std::vector<Fill>{Fill::kNone, Fill::kRed}));
  EXPECT_EQ(err(t, 1), "maximum relative error exceeds 0.5");
  t.rows[1][header_index(t.mode, k::kMaxDiff)] = Cell::num(0.2);
  t.rows[1][header_index(t.mode, k::kErrorMessage)] = Cell::str("");
  apply_highlight(t);
  EXPECT_EQ(t.fills[1], Fill::kYellow);
  EXPECT_EQ(err(t, 1),
            "The output's maximum relative error exceeds 0.1, while the input/parameters's is below 0.01");
}

TEST(CompareHighlight, Md5HasNone) {
  CompareTable t;
  t.mode = CompareMode::kMd5;
  t.header = table_header(t.mode, false);
  t.rows.push_back(Row(t.header.size(), Cell::str("A.a.0.forward.input.0")));
  apply_highlight(t);
  EXPECT_EQ(t.fills, (std::vector<Fill>{Fill::kNone}));
}
