#include "msprobe/jobs/merge_result.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <regex>
#include <unordered_map>

#include "msprobe/base/error.h"
#include "msprobe/base/output_dir.h"
#include "msprobe/base/path.h"
#include "msprobe/compare/compare_const.h"
#include "msprobe/format/xlsx_reader.h"
#include "msprobe/format/xlsx_writer.h"
#include "msprobe/jobs/compare_output_names.h"

namespace msprobe {
namespace compare {

namespace {

// The compare indexes (metric columns) a merge can take, per mode.
const std::vector<std::string> kTensorIndex = {k::kCosine, k::kMaxAbsErr, k::kMaxRelativeErr,
                                               k::kOneThousandth, k::kFiveThousandths};
const std::vector<std::string> kStatisticsIndex = {
    k::kMaxDiff,        k::kMinDiff,        k::kMeanDiff,        k::kNormDiff,
    k::kMaxRelativeErr, k::kMinRelativeErr, k::kMeanRelativeErr, k::kNormRelativeErr};

// 1.2.1 recognises the mode by the exact header (with or without NPU_Stack_Info).
std::optional<CompareMode> mode_of(const std::vector<std::string>& h) {
  for (CompareMode m : {CompareMode::kTensor, CompareMode::kStatistics, CompareMode::kMd5})
    if (h == table_header(m, false) || h == table_header(m, true)) return m;
  return std::nullopt;
}

// 1.2.1's table_value_is_valid: text that is not a number and starts a formula (=, +, -, %, @,
// also full-width, at the start or after ';') is refused.
bool parses_as_float(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace((unsigned char)s[b])) ++b;
  while (e > b && std::isspace((unsigned char)s[e - 1])) --e;
  if (b == e) return false;
  const std::string t = s.substr(b, e - b);
  char* end = nullptr;
  std::strtod(t.c_str(), &end);
  return end == t.c_str() + t.size();
}

bool starts_formula(const std::string& s, size_t at) {
  if (at >= s.size()) return false;
  const char c = s[at];
  if (c == '+' || c == '-' || c == '=' || c == '%' || c == '@') return true;
  // Full-width ＋ － ＝ ％ ＠ (U+FF0B, U+FF0D, U+FF1D, U+FF05, U+FF20).
  if (s.size() - at >= 3 && (unsigned char)s[at] == 0xEF && (unsigned char)s[at + 1] == 0xBC) {
    const unsigned char d = (unsigned char)s[at + 2];
    return d == 0x8B || d == 0x8D || d == 0x9D || d == 0x85 || d == 0xA0;
  }
  return false;
}

bool value_is_safe(const Cell& c) {
  if (c.kind != Cell::Kind::kString || parses_as_float(c.s)) return true;
  if (starts_formula(c.s, 0)) return false;
  for (size_t i = 0; i < c.s.size(); ++i)
    if (c.s[i] == ';' && starts_formula(c.s, i + 1)) return false;
  return true;
}

void check_value(const Cell& c) {
  if (!value_is_safe(c)) {
    throw InvalidInput("Malicious value [" + c.s + "] is not allowed to be written into the merged xlsx.");
  }
}

struct RankFile {
  int rank;
  std::string path;
};

std::vector<RankFile> result_files(const std::string& input_dir, MergeReport& report) {
  struct stat st;
  if (::lstat(input_dir.c_str(), &st) != 0) throw FileError("input_dir " + input_dir + ": no such folder");
  if (S_ISLNK(st.st_mode))
    throw FileError("input_dir " + input_dir + ": is a symbolic link; pass the folder itself");
  if (!S_ISDIR(st.st_mode)) throw FileError("input_dir " + input_dir + ": not a folder");
  DIR* d = ::opendir(input_dir.c_str());
  if (d == nullptr) throw FileError("input_dir " + input_dir + ": cannot list: " + std::strerror(errno));
  std::vector<std::string> names;
  while (dirent* e = ::readdir(d)) {
    const std::string n = e->d_name;
    if (n.size() >= 5 && n.compare(n.size() - 5, 5, ".xlsx") == 0) names.push_back(n);
  }
  ::closedir(d);
  std::sort(names.begin(), names.end());
  static const std::regex kMulti(R"(^compare_result_rank(\d+)-rank\1_\d{14}\.xlsx$)");
  static const std::regex kSingle(R"(^compare_result_rank-rank_\d{14}\.xlsx$)");
  std::vector<RankFile> files;
  for (const std::string& n : names) {
    std::smatch m;
    if (std::regex_match(n, m, kMulti)) {
      const std::string p = join_path(input_dir, n);
      if (::lstat(p.c_str(), &st) != 0 || S_ISLNK(st.st_mode) || !S_ISREG(st.st_mode)) {
        throw FileError(p + ": not a regular file (symbolic links are refused)");
      }
      const std::string digits = m[1].str();
      if (digits.size() > 9) throw InvalidInput("Wrong compare result name: " + n + ", please check!");
      files.push_back({std::atoi(digits.c_str()), p});
    } else if (std::regex_match(n, kSingle)) {
      report.warnings.push_back("Single rank compare result do not need to be merged.");
    } else {
      throw InvalidInput("Wrong compare result name: " + n + ", please check!");
    }
  }
  std::stable_sort(files.begin(), files.end(),
                   [](const RankFile& a, const RankFile& b) { return a.rank < b.rank; });
  if (files.size() < 2) throw InvalidInput("Number of compare result is no more than 1, no need to merge.");
  return files;
}

std::string text_of(const Cell& c) {
  if (c.kind == Cell::Kind::kString) return c.s;
  return "";
}

// One rank's values: compare index -> (NPU Name -> value), names in first-seen order.
struct RankValues {
  int rank;
  std::vector<std::vector<std::pair<std::string, Cell>>> per_index;
};

}  // namespace

MergeReport merge_results(const std::string& input_dir, const std::string& output_dir,
                          const MergeConfig& config, const std::string& timestamp) {
  MergeReport report;
  const std::vector<RankFile> files = result_files(input_dir, report);
  prepare_output_dir(output_dir);
  if (config.empty) throw InvalidInput("config.yaml is empty, please check.");
  if (config.api.empty()) throw InvalidInput("The APIs required to merge data were not found");

  // 1.2.1 shares one list: the configured indexes, or the first result's full set.
  std::vector<std::string> indexes = config.compare_index;
  std::vector<RankValues> ranks;
  for (const RankFile& f : files) {
    report.infos.push_back("Parsing rank" + std::to_string(f.rank) + " compare result...");
    const std::vector<XlsxSheet> sheets = read_xlsx(f.path, true);
    const auto& rows = sheets[0].rows;
    const std::string rank_text = "rank" + std::to_string(f.rank);
    if (rows.size() <= 1) {
      report.warnings.push_back("Rank" + std::to_string(f.rank) +
                                " compare result is empty and will not shown in merged result.");
      continue;
    }
    std::vector<std::string> header;
    for (const Cell& c : rows[0]) header.push_back(c.kind == Cell::Kind::kString ? c.s : "");
    const std::optional<CompareMode> mode = mode_of(header);
    if (!mode) {
      report.warnings.push_back(
          "A valid dump task can not be identified from " + rank_text +
          " compare result, please check! The compare result will not be shown in merged "
          "result.");
      continue;
    }
    if (*mode == CompareMode::kMd5) {
      report.warnings.push_back(
          "Rank" + std::to_string(f.rank) +
          " compare result is 'md5' dump task and does not support merging result, please "
          "check! The compare result will not be shown in merged result.");
      continue;
    }
    const std::vector<std::string>& valid = *mode == CompareMode::kTensor ? kTensorIndex : kStatisticsIndex;
    if (indexes.empty()) indexes = valid;
    bool subset = true;
    for (const std::string& i : indexes) subset &= std::find(valid.begin(), valid.end(), i) != valid.end();
    if (!subset) {
      std::string missing;
      for (const std::string& v : valid) {
        if (std::find(indexes.begin(), indexes.end(), v) == indexes.end()) {
          missing += (missing.empty() ? "'" : ", '") + v + "'";
        }
      }
      report.warnings.push_back("Compare indexes in " + rank_text +
                                " compare result are not consistent with those in other compare results, "
                                "please check!");
      report.warnings.push_back("The compare result will not be shown in merged result.");
      report.warnings.push_back("The invalid compare indexes: {" + missing + "}");
      continue;
    }
    const int name_col = 0;
    // Rows whose NPU Name contains "<api>.", per configured API, in table order.
    std::vector<std::string> full_names;
    for (const std::string& api : config.api) {
      const std::string pattern = api + ".";
      size_t found = 0;
      for (size_t r = 1; r < rows.size(); ++r) {
        if (rows[r].empty()) continue;
        const std::string name = text_of(rows[r][name_col]);
        if (name.find(pattern) != std::string::npos) {
          full_names.push_back(name);
          ++found;
        }
      }
      if (found == 0) report.warnings.push_back(api + " not found in " + rank_text + " compare result.");
    }
    // First row of each name.
    std::unordered_map<std::string, size_t> first_row;
    for (size_t r = rows.size(); r-- > 1;) {
      if (!rows[r].empty()) first_row[text_of(rows[r][name_col])] = r;
    }
    RankValues rv;
    rv.rank = f.rank;
    for (const std::string& index : indexes) {
      const int col = (int)(std::find(header.begin(), header.end(), index) - header.begin());
      std::vector<std::pair<std::string, Cell>> values;
      std::unordered_map<std::string, size_t> seen;
      for (const std::string& name : full_names) {
        check_value(Cell::str(name));
        const auto& row = rows[first_row[name]];
        Cell v = (size_t)col < row.size() ? row[col] : Cell::empty();
        check_value(v);
        const auto it = seen.find(name);
        if (it != seen.end()) {
          values[it->second].second = v;
        } else {
          seen[name] = values.size();
          values.emplace_back(name, v);
        }
      }
      rv.per_index.push_back(std::move(values));
    }
    ranks.push_back(std::move(rv));
  }
  if (ranks.empty()) throw InvalidInput("Nothing to merge.");
  if (indexes.empty()) throw InvalidInput("No compare index recognized, please check!");
  if (ranks.size() == 1) report.infos.push_back("Only one compare result gets merge data.");

  // pandas outer merge on NPU Name, rank by rank: the first rank's names in order, then names new
  // in each later rank appended in its order; a rank without a name leaves the cell blank.
  std::vector<PlainSheet> sheets;
  for (size_t i = 0; i < indexes.size(); ++i) {
    PlainSheet s;
    s.name = indexes[i];
    s.header.push_back("NPU Name");
    std::unordered_map<std::string, size_t> row_of;
    for (size_t k = 0; k < ranks.size(); ++k) {
      s.header.push_back("rank" + std::to_string(ranks[k].rank));
      for (const auto& nv : ranks[k].per_index[i]) {
        auto it = row_of.find(nv.first);
        if (it == row_of.end()) {
          it = row_of.emplace(nv.first, s.rows.size()).first;
          std::vector<Cell> row(1 + ranks.size());
          row[0] = Cell::str(nv.first);
          s.rows.push_back(std::move(row));
        }
        s.rows[it->second][1 + k] = nv.second;
      }
    }
    sheets.push_back(std::move(s));
  }
  const std::string ts = timestamp.empty() ? timestamp_now() : timestamp;
  report.path = join_path(output_dir.empty() ? "." : output_dir, merge_result_file_name(ts));
  write_pandas_xlsx(sheets, report.path);
  report.infos.push_back("The compare results of the multi-ranks are merged and saved in: " + report.path +
                         ".");
  return report;
}

}  // namespace compare
}  // namespace msprobe
