// The libFuzzer targets' bodies (one function per parser of user files), shared by the fuzzers
// (cpp/fuzz/*_fuzz.cc) and by the regression GoogleTest that replays every finding
// (cpp/tests/fuzz_regression_test.cc). A parser may reject input only with its documented
// error types; any other exception, crash, sanitizer report or a broken invariant (abort) is
// a finding.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>

#include "fuzz_support.h"
#include "msprobe/base/error.h"
#include "msprobe/check/csv_table.h"
#include "msprobe/config/dump_config.h"
#include "msprobe/dump/dump_repair.h"
#include "msprobe/format/json_value.h"
#include "msprobe/format/npy_reader.h"
#include "msprobe/format/pt_reader.h"
#include "msprobe/format/xlsx_reader.h"
#include "msprobe/grad/grad_compare.h"
#include "msprobe/jobs/api_precision_compare.h"
#include "msprobe/jobs/run_ut_result_files.h"
#include "msprobe/kernel/kernel_stat_csv.h"
#include "msprobe/monitor/anomaly_file.h"
#include "msprobe/monitor/monitor_config.h"
#include "msprobe/monitor/monitor_csv_series.h"
#include "msprobe/reader/dump_json_reader.h"
#include "msprobe/reader/side_files.h"
#include "msprobe/reader/tensor_store.h"
#include "msprobe/runut/dump_apis.h"
#include "msprobe/stats/tensor_stats.h"

namespace msprobe_fuzz {

// JSON parser (config.json, dump.json, stack.json, construct.json): any bytes give a value or a
// JsonParseError, whole or walked a value at a time.
inline void json(const uint8_t* data, size_t size) {
  using namespace msprobe;
  try {
    parse_json(as_text(data, size), "input.json");
  } catch (const JsonParseError&) {
  }
  // The cursor, as the readers of big files walk them: one value at a time.
  try {
    JsonCursor cur(as_text(data, size), "input.json");
    while (cur.peek() >= 0) {
      cur.parse_value();
      if (cur.peek() == ',') cur.expect(',', "");
    }
  } catch (const JsonParseError&) {
  }
}

// config.json through the validator, for both frameworks: a DumpConfig or one InvalidInput /
// FileError line.
inline void config(const uint8_t* data, size_t size) {
  using namespace msprobe;
  JsonValue doc;
  try {
    doc = parse_json(as_text(data, size), "config.json");
  } catch (const FileError&) {
    return;
  }
  for (Framework fw : {Framework::kPyTorch, Framework::kMindSpore}) {
    try {
      parse_dump_config(doc, fw, ConfigOverrides{}, "config.json");
    } catch (const InvalidInput&) {
    } catch (const FileError&) {
    }
  }
}

// .npy reader (MindSpore tensors, run_ut inputs): never throws for contents; when it accepts a
// file, statistics over every element stay inside the mapping.
inline void npy(const uint8_t* data, size_t size) {
  using namespace msprobe;
  const std::string path = write_file("x.npy", as_text(data, size));
  NpyFile f(path);
  if (f.status() == NpyFile::Status::kOk) compute_stats(f.view(), /*want_crc=*/true);
}

// .pt reader (torch.save zip / zip64, the restricted pickle program) through the dump reader's
// TensorStore: a tensor whose every element lies in the file, or PtUnsupported / FileError.
inline void pt(const uint8_t* data, size_t size) {
  using namespace msprobe;
  try {
    parse_pt(data, size);
  } catch (const FileError&) {
  }
  write_file("x.pt", as_text(data, size));
  try {
    reader::LoadedTensor t = reader::TensorStore(scratch()).load("x.pt");
    compute_stats(t.view(), /*want_crc=*/true);
  } catch (const FileError&) {
  }
}

// The CSV reader of the accuracy checker (details / result CSVs of run_ut, api_precision_compare
// inputs): a table whose every cell can be read, or one FileError line.
inline void csv(const uint8_t* data, size_t size) {
  using namespace msprobe;
  try {
    check::CsvTable t = check::CsvTable::parse(std::string(as_text(data, size)), "x.csv");
    size_t bytes = 0;
    for (size_t r = 0; r < t.num_rows(); ++r) {
      for (size_t c = 0; c < t.header().size() + 1; ++c) {
        if (const std::string_view* cell = t.cell(r, c)) bytes += cell->size();
      }
      bytes += (size_t)t.row_line(r);
    }
    t.column("API Name");
    if (bytes == (size_t)-1) std::abort();  // keeps the reads
  } catch (const FileError&) {
  }
}

// GradComparator's similarities.csv (ours or 1.2.1's, read back by `msprobe report`): a table of
// similarities with its first divergence, or one FileError line.
inline void grad_similarities(const uint8_t* data, size_t size) {
  using namespace msprobe;
  const std::string path = write_file("similarities.csv", as_text(data, size));
  try {
    grad::GradSimilarities s = grad::read_similarities_csv(path);
    for (const auto& row : s.values) {
      if (row.size() != s.steps.size()) std::abort();
    }
    grad::GradDivergence d = grad::find_grad_divergence(s);
    if (grad::divergence_line(d).empty() || grad::divergence_json(d, s).empty()) std::abort();
  } catch (const FileError&) {
  }
}

// The training monitor's user files (input: three parts separated by "@@@@" lines): its
// config.json through the validator, an anomaly.json through read_anomalies and the earliest
// ordering, and a csv file read back as series (csv2tensorboard_by_step, the report). Each is
// accepted or refused with one InvalidInput / FileError line.
inline void monitor(const uint8_t* data, size_t size) {
  using namespace msprobe;
  const auto parts = split(as_text(data, size), 3);
  try {
    monitor::parse_monitor_config(parse_json(parts[0], "monitor.json"), "monitor.json");
  } catch (const InvalidInput&) {
  } catch (const FileError&) {
  }
  const std::string anomalies = scratch() + "/anomaly_detected";
  std::filesystem::create_directories(anomalies + "/rank0");
  write_file("anomaly_detected/rank0/anomaly.json", parts[1]);
  try {
    const auto entries = monitor::read_anomalies(anomalies);
    if (monitor::earliest_anomalies(entries, 3, {}).size() > 3) std::abort();
  } catch (const InvalidInput&) {
  } catch (const FileError&) {
  }
  const std::string rank_dir = scratch() + "/monitor_rank";
  std::filesystem::create_directories(rank_dir);
  write_file("monitor_rank/actv_0-0.csv", parts[2]);
  try {
    const auto t = monitor::read_monitor_csv_series(rank_dir, "actv");
    for (const auto& s : t.series)
      if (s.steps.size() != s.values.size()) std::abort();
  } catch (const InvalidInput&) {
  } catch (const FileError&) {
  }
}

// run_ut -csv_path resume: a result CSV and a details CSV (input: the two files separated by a
// "@@@@" line) are validated and repaired, or refused with one line.
inline void runut_resume(const uint8_t* data, size_t size) {
  using namespace msprobe;
  const auto parts = split(as_text(data, size), 2);
  const std::string result = write_file("accuracy_checking_result_1.csv", parts[0]);
  const std::string details = write_file("accuracy_checking_details_1.csv", parts[1]);
  try {
    runut::ResumeReport rep = runut::prepare_resume(result, details);
    runut::reorder_result_files(result, details, {});
    std::vector<std::string> reversed(rep.done.rbegin(), rep.done.rend());
    runut::reorder_result_files(result, details, reversed);
  } catch (const FileError&) {
  } catch (const InvalidInput&) {
  }
}

// api_precision_compare inputs: an NPU and a GPU details CSV (separated by a "@@@@" line) give
// the two output files or one error line.
inline void precision_compare(const uint8_t* data, size_t size) {
  using namespace msprobe;
  const auto parts = split(as_text(data, size), 2);
  check::PrecisionCompareConfig cfg;
  cfg.npu_csv_path = write_file("npu.csv", parts[0]);
  cfg.gpu_csv_path = write_file("gpu.csv", parts[1]);
  cfg.result_csv_path = scratch() + "/api_precision_compare_result_1.csv";
  cfg.details_csv_path = scratch() + "/api_precision_compare_details_1.csv";
  try {
    check::api_precision_compare(cfg);
  } catch (const FileError&) {
  } catch (const InvalidInput&) {
  }
}

// MindSpore L2 statistics on CPU: a mapping.csv and a tensor file (separated by a "@@@@" line)
// in an iteration folder are turned into statistic.csv rows; contents never make it throw.
inline void kernel_stat(const uint8_t* data, size_t size) {
  using namespace msprobe;
  const auto parts = split(as_text(data, size), 2);
  const std::string dump = scratch() + "/kernel";
  const std::string iter = "kernel/rank_0/Net/0/0/";
  std::filesystem::remove_all(dump);
  std::filesystem::create_directories(scratch() + "/" + iter);
  write_file(iter + "mapping.csv", parts[0]);
  // One file named in full, one under a short name that mapping.csv resolves.
  write_file(iter + "Add.Default_Add-op1.2.0.1700000000.output.0.DefaultFormat.float32.npy", parts[1]);
  write_file(iter + "1.npy", parts[1]);
  KernelStatOptions opts;
  opts.categories = {"max", "min", "avg", "l2norm", "md5"};
  opts.final_pass = true;
  convert_kernel_tensor_dump(dump, opts);
}

// msprobe repair of `bytes` as the file `name` either refuses it or leaves a file the strict
// parser reads (a violation aborts).
inline void check_repair(const std::string& name, std::string_view bytes) {
  using namespace msprobe;
  const std::string path = write_file(name, bytes);
  const RepairResult r = repair_dump_file(path, /*durable=*/false);
  if (r.action == RepairResult::Action::kFailed) return;
  try {
    const JsonValue doc = parse_json_file(path);
    if (!doc.is_object()) std::abort();
    if (name == "dump.json" && (!doc.find("data") || !doc.find("data")->is_object())) std::abort();
  } catch (const FileError&) {
    std::abort();  // repair said it made the file whole
  }
}

// A dump.json / stack.json / construct.json a user hands us: the streamed reader, run_ut's view of
// it and the side-file readers give records or one FileError line; repair as above.
inline void dump_json(const uint8_t* data, size_t size) {
  using namespace msprobe;
  const std::string_view bytes = as_text(data, size);
  const std::string path = write_file("dump.json", bytes);
  try {
    reader::DumpJsonReader r(path);
    r.for_each_entry([](std::string_view, const JsonValue&) {});
  } catch (const FileError&) {
  }
  try {
    runut::DumpApis::load(path);
  } catch (const FileError&) {
  } catch (const InvalidInput&) {
  }
  try {
    reader::RepairNote note;
    reader::read_stack_json(path, &note);
  } catch (const FileError&) {
  }
  try {
    reader::RepairNote note;
    reader::read_construct_json(path, &note);
  } catch (const FileError&) {
  }
  check_repair("dump.json", bytes);
  check_repair("stack.json", bytes);
  check_repair("construct.json", bytes);
}

// merge_result's inputs (compare_result_*.xlsx, any workbook a user saved): the first sheet, as
// merge_result reads it, every cell readable, or one FileError line. The file as it is (the zip
// layer: directory, zip64, inflate, CRC), then its entries re-packed with correct CRCs
// (fuzz_support.h) so that changes inside the XML reach the SpreadsheetML reader.
inline void xlsx(const uint8_t* data, size_t size) {
  using namespace msprobe;
  auto check = [](const std::vector<XlsxSheet>& sheets) {
    if (sheets.empty()) std::abort();  // "no sheet" is a FileError
    size_t cells = 0;
    for (const XlsxSheet& sheet : sheets) {
      cells += sheet.name.size();
      for (const auto& row : sheet.rows) {
        for (const Cell& c : row) cells += c.s.size() + (c.kind == Cell::Kind::kNumber);
      }
    }
    if (cells == (size_t)-1) std::abort();  // keeps the reads
  };
  const std::string_view bytes = as_text(data, size);
  try {
    check(read_xlsx(write_file("x.xlsx", bytes), /*first_only=*/true));  // as merge_result
  } catch (const FileError&) {
  }
  try {
    check(read_xlsx_bytes(repack_zip(bytes), "repacked.xlsx", /*first_only=*/true));
  } catch (const FileError&) {
  }
}

}  // namespace msprobe_fuzz
