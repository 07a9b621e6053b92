#include "msprobe/compare/compare_job.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "msprobe/base/error.h"
#include "msprobe/check/api_precision_compare.h"
#include "msprobe/compare/mapping_yaml.h"
#include "msprobe/compare/result_names.h"
#include "msprobe/compare/xlsx_writer.h"

namespace msprobe {
namespace compare {

namespace {

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

std::string folder_of(const std::string& path) {
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string join(const std::string& dir, const std::string& name) {
  return !dir.empty() && dir.back() == '/' ? dir + name : dir + "/" + name;
}

void check_input_file(const std::string& path, const char* what) {
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0) {
    throw FileError(std::string(what) + " " + path + ": " +
                    (errno == ENOENT || errno == ENOTDIR ? std::string("no such file") : std::strerror(errno)));
  }
  if (S_ISLNK(st.st_mode)) {
    throw FileError(std::string(what) + " " + path + ": is a symbolic link; pass the file itself");
  }
  if (!S_ISREG(st.st_mode)) throw FileError(std::string(what) + " " + path + ": not a regular file");
}

bool is_regular_file(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

}  // namespace

CompareJobReport run_compare_job(const CompareJob& job, ProgressFn progress) {
  CompareJobReport report;
  // 1.2.1 (set_dump_path): both paths must name dump.json files.
  if (!ends_with(job.npu_json, "dump.json") || !ends_with(job.bench_json, "dump.json")) {
    throw InvalidInput("Please check the json path is valid. npu_path: " + job.npu_json +
                       ", bench_path: " + job.bench_json);
  }
  check_input_file(job.npu_json, "npu_path");
  check_input_file(job.bench_json, "bench_path");

  CompareOptions options;
  options.framework = job.framework;
  options.fuzzy_match = job.fuzzy_match;
  options.auto_analyze = job.auto_analyze;
  options.threads = job.threads;
  options.name_mapper = job.name_mapper;
  if (job.stack_json_given) {
    options.stack_mode = job.stack_mode;
    if (job.stack_mode) {
      check_input_file(job.stack_json, "stack_path");
      options.stack_path = job.stack_json;
    }
  } else {
    const std::string dir = folder_of(job.npu_json);
    const std::string candidate = join(dir, "stack.json");
    if (is_regular_file(candidate)) {
      options.stack_mode = true;
      options.stack_path = candidate;
    } else {
      report.warnings.push_back("stack.json is not found in dump dir " + dir + ".");
    }
  }
  report.stack_mode = options.stack_mode;
  if (job.fuzzy_match) {
    report.warnings.push_back("This task uses fuzzy matching, which may affect the accuracy of the comparison.");
  }
  check::prepare_output_dir(job.output_dir);
  const std::string ts = job.timestamp.empty() ? check::timestamp_now() : job.timestamp;
  const std::string out_dir = job.output_dir.empty() ? "." : job.output_dir;
  if (job.save_data_mapping && job.name_mapper && job.name_mapper->data_mapping() != nullptr) {
    // 1.2.1 saves the pairs before comparing, so they are there even when nothing matches.
    report.data_mapping_path = join(out_dir, data_mapping_file_name(job.suffix, ts));
    write_mapping_yaml(*job.name_mapper->data_mapping(), report.data_mapping_path);
  }

  const CompareTable table = compare_dumps(job.npu_json, job.bench_json, options, std::move(progress));
  report.rows = table.rows.size();
  if (table.rows.empty()) {
    report.warnings.push_back("Can`t match any op.");
    return report;
  }
  for (Fill f : table.fills) {
    report.red_rows += f == Fill::kRed;
    report.yellow_rows += f == Fill::kYellow;
  }
  report.xlsx_path = join(out_dir, compare_result_file_name(job.suffix, ts));
  write_compare_xlsx(table, report.xlsx_path);
  if (job.auto_analyze) {
    report.advisor = analyze_compare_table(table);
    // The place to name the first divergence (divergence_*.json) in the advisor text: set
    // report.advisor.first_divergence here and the advisor file gets a "First Divergence:" line.
    for (const std::string& w : report.advisor.warnings) report.warnings.push_back(w);
    report.advisor_path = join(out_dir, advisor_file_name(job.suffix, ts));
    write_advisor_file(report.advisor, report.advisor_path);
  }
  return report;
}

}  // namespace compare
}  // namespace msprobe
