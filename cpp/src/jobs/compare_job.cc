#include "msprobe/jobs/compare_job.h"

#include <exception>
#include <functional>
#include <thread>

#include "msprobe/base/error.h"
#include "msprobe/base/input_file.h"
#include "msprobe/base/mapped_file.h"
#include "msprobe/base/output_dir.h"
#include "msprobe/base/path.h"
#include "msprobe/base/strings.h"
#include "msprobe/compare/compare_xlsx.h"
#include "msprobe/compare/mapping_yaml.h"
#include "msprobe/jobs/compare_output_names.h"
#include "msprobe/jobs/suspect_next_steps.h"
#include "msprobe/jobs/suspect_replay.h"
#include "msprobe/report/compare_report.h"
#include "msprobe/report/compared_rank.h"

namespace msprobe {
namespace compare {

namespace {

// N of a folder named <prefix>N, else -1 ("rank" alone: a run without ranks).
int number_after(const std::string& folder, const std::string& prefix) {
  const std::string name = file_name_of(folder);
  if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0 ||
      name.find_first_not_of("0123456789", prefix.size()) != std::string::npos ||
      name.size() > prefix.size() + 9)
    return -1;
  return std::stoi(name.substr(prefix.size()));
}

// Beyond 1.2.1: the suspects of this rank in divergence{suffix}_{ts}.json, each with its next
// steps (next_steps{suffix}_{ts}/), the first one named in the advisor, and the HTML report of
// the compare. Reads c.table only.
void write_divergence_and_report(const CompareJob& job, report::ComparedRank& c, const std::string& out_dir,
                                 const std::string& ts, CompareJobReport* report) {
  report->suspects = c.suspects.size();
  report->first_divergence = first_suspect_line(c.suspects);
  if (!report->first_divergence.empty())
    report->advisor.first_divergence = c.suspects.front().name + ": " + c.suspects.front().reason;
  replay_suspects(&c.suspects, job);
  if (!report->first_divergence.empty()) report->replay = replay_line(c.suspects.front());
  RedumpCheck check;
  if (!job.redump_suspect.empty()) {
    DivergenceContext ctx;
    ctx.rank = c.rank;
    ctx.step = c.step;
    ctx.prior_noise = &c.prior_noise;
    check = check_redumped_suspect(c.table, ctx, c.suspects, job.redump_suspect, job.redump_first_source);
    report->redump_check = "Re-dump of " + check.suspect + ": " + check.sentence + ".";
  }
  NextStepsInput next;
  next.framework = job.framework;
  next.npu_json = job.npu_json;
  next.folder = join_path(out_dir, next_steps_folder_name(job.suffix, ts));
  next.tensor_data = c.table.mode == CompareMode::kTensor;
  next.checked_suspect = job.redump_suspect;
  write_suspect_next_steps(&c.suspects, next);
  if (!report->first_divergence.empty())
    report->next_steps = next_steps_line(c.suspects.front(), job.framework);
  report->divergence_path = join_path(out_dir, divergence_file_name(job.suffix, ts));
  report::write_report_file(report->divergence_path, divergence_json(c.suspects, c.table.mode, check));
  if (!job.html_report) return;
  report::ReportInput in;
  in.runs = {report::run_info("NPU", job.npu_json, job.npu_json),
             report::run_info("Bench", job.bench_json, job.bench_json)};
  in.ranks.push_back(report::rank_input(c));
  report->report_path = join_path(out_dir, compare_report_file_name(job.suffix, ts));
  report::write_report_file(report->report_path, report::render_compare_report(in));
}

// Runs `work` on its own thread unless the job is limited to one thread; join() waits for it and
// raises what it raised. The xlsx (libxlsxwriter formats and deflates on one thread) is most of
// a large statistics compare, so the rest of the outputs are made meanwhile.
class Background {
 public:
  Background(bool parallel, std::function<void()> work) {
    if (parallel) {
      thread_ = std::thread([this, work = std::move(work)] {
        try {
          work();
        } catch (...) {
          error_ = std::current_exception();
        }
      });
    } else {
      work();
    }
  }
  ~Background() {
    if (thread_.joinable()) thread_.join();
  }
  Background(const Background&) = delete;  // the thread holds `this`
  Background& operator=(const Background&) = delete;
  void join() {
    if (thread_.joinable()) thread_.join();
    if (error_) std::rethrow_exception(error_);
  }

 private:
  std::thread thread_;
  std::exception_ptr error_;
};

}  // namespace

CompareJobReport run_compare_job(const CompareJob& job, ProgressFn progress) {
  CompareJobReport report;
  report.suffix = job.suffix;
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
    const std::string candidate = join_path(dir, "stack.json");
    if (is_regular_file_not_link(candidate)) {
      options.stack_mode = true;
      options.stack_path = candidate;
    } else {
      report.warnings.push_back("stack.json is not found in dump dir " + dir + ".");
    }
  }
  report.stack_mode = options.stack_mode;
  if (job.fuzzy_match) {
    report.warnings.push_back(
        "This task uses fuzzy matching, which may affect the accuracy of the comparison.");
  }
  prepare_output_dir(job.output_dir);
  const std::string ts = job.timestamp.empty() ? timestamp_now() : job.timestamp;
  const std::string out_dir = job.output_dir.empty() ? "." : job.output_dir;
  if (job.save_data_mapping && job.name_mapper && job.name_mapper->data_mapping() != nullptr) {
    // 1.2.1 saves the pairs before comparing, so they are there even when nothing matches.
    report.data_mapping_path = join_path(out_dir, data_mapping_file_name(job.suffix, ts));
    write_mapping_yaml(*job.name_mapper->data_mapping(), report.data_mapping_path);
  }

  CompareTable table = compare_dumps(job.npu_json, job.bench_json, options, std::move(progress));
  for (const std::string& note : table.notes) report.warnings.push_back(note);  // torn or incomplete
  report.rows = table.rows.size();
  if (table.rows.empty()) {
    report.warnings.push_back("Can`t match any op.");
    return report;
  }
  report::ComparedRank rank;
  const std::string rank_dir = folder_of(job.npu_json);
  rank.rank = number_after(rank_dir, "rank");
  rank.step = number_after(folder_of(rank_dir), "step");
  rank.table = std::move(table);
  rank.prior_noise = job.redump_noise;
  // The suspects first: their verdict goes into the table, so the xlsx and the advisor show it.
  report::find_rank_divergence(&rank, job.npu_json, &report.warnings);
  for (Fill f : rank.table.fills) {
    report.red_rows += f == Fill::kRed;
    report.yellow_rows += f == Fill::kYellow;
  }
  report.xlsx_path = join_path(out_dir, compare_result_file_name(job.suffix, ts));
  Background xlsx(job.threads != 1, [&] { write_compare_xlsx(rank.table, report.xlsx_path); });
  if (job.auto_analyze) {
    const compare::Suspect* first = rank.suspects.empty() ? nullptr : &rank.suspects.front();
    report.advisor = analyze_compare_table(rank.table, !first          ? ""
                                                       : first->source ? first->source_row
                                                                       : first->name);
  }
  write_divergence_and_report(job, rank, out_dir, ts, &report);
  xlsx.join();
  if (job.auto_analyze) {
    for (const std::string& w : report.advisor.warnings) report.warnings.push_back(w);
    report.advisor_path = join_path(out_dir, advisor_file_name(job.suffix, ts));
    write_advisor_file(report.advisor, report.advisor_path);
  }
  return report;
}

std::string merge_rank_divergence(const std::vector<std::string>& rank_files, const std::string& out_path) {
  std::vector<Suspect> all;
  CompareMode mode = CompareMode::kStatistics;
  for (const std::string& path : rank_files) {
    const MappedFile file(path);
    const std::string text(reinterpret_cast<const char*>(file.data()), file.size());
    std::vector<Suspect> s = parse_divergence_json(text, path, &mode);
    all.insert(all.end(), std::make_move_iterator(s.begin()), std::make_move_iterator(s.end()));
  }
  rank_suspects(&all);
  report::write_report_file(out_path, divergence_json(all, mode));
  return first_suspect_line(all);
}

}  // namespace compare
}  // namespace msprobe
