// MindSpore names a dumped tensor {OpType}.{OpName}.{task}.{stream}.{timestamp}.{input|output}.
// {slot}.{format}.{DType}.npy; a name over 255 bytes is replaced by a random one and listed in
// the folder's mapping.csv as "random,original". The op name may itself contain dots, so the
// seven trailing fields are taken from the right.
//
// Crash safety: rows are appended (one write per folder) before the .npy files are removed, so
// an interruption can repeat rows but never lose a tensor's statistics.
#include "msprobe/kernel/kernel_stat_csv.h"
#include "msprobe/base/strings.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>

#include "kernel_dump_files.h"
#include "msprobe/base/error.h"
#include "msprobe/format/npy_reader.h"
#include "msprobe/stats/md5.h"
#include "msprobe/stats/tensor_stats.h"

namespace msprobe {
namespace {

const char* kCommonHeader = "Op Type,Op Name,Task ID,Stream ID,Timestamp,IO,Slot,Data Size,Data Type,Shape";
const std::map<std::string, std::string> kColumnNames = {{"max", "Max Value"},
                                                         {"min", "Min Value"},
                                                         {"avg", "Avg Value"},
                                                         {"l2norm", "L2Norm Value"},
                                                         {"md5", "MD5"}};

void append_number(std::string& out, double v) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

void append_stat(std::string& out, const StatValue& v) {
  switch (v.kind) {
    case StatValue::Kind::kNull: out += "null"; break;
    case StatValue::Kind::kBool: out += v.b ? "1" : "0"; break;
    case StatValue::Kind::kInt: out += std::to_string(v.i); break;
    case StatValue::Kind::kFloat: append_number(out, v.f); break;
  }
}

// MindSpore quotes nothing but the shape; a name with a comma or quote is quoted CSV-style.
void append_field(std::string& out, const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) {
    out += s;
    return;
  }
  out += '"';
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
}

struct Row {
  uint64_t timestamp;
  std::string name, text;
};

bool append_all(const std::string& path, const std::string& header, const std::string& body,
                std::string& err) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0640);
  if (fd < 0) {
    err = std::strerror(errno);
    return false;
  }
  struct stat st;
  std::string text;
  if (::fstat(fd, &st) == 0 && st.st_size == 0) text = header + "\n";
  text += body;
  size_t done = 0;
  while (done < text.size()) {
    ssize_t w = ::write(fd, text.data() + done, text.size() - done);
    if (w < 0) {
      if (errno == EINTR) continue;
      err = std::strerror(errno);
      ::close(fd);
      return false;
    }
    done += (size_t)w;
  }
  ::fsync(fd);
  ::close(fd);
  return true;
}

void convert_folder(const std::string& dir, const KernelStatOptions& opts, const std::string& header,
                    KernelStatResult& res) {
  std::vector<std::string> files = list_dir(dir, false);
  FolderDumpNames names(dir);
  std::vector<Row> rows;
  std::vector<std::string> done;
  for (const std::string& file : files) {
    if (file.size() < 4 || file.compare(file.size() - 4, 4, ".npy") != 0) continue;
    const std::string path = dir + "/" + file;
    std::string original;
    DumpName n;
    if (!names.parse(file, original, n)) {
      res.problems.push_back(path +
                             ": not named like a MindSpore dump file ({OpType}.{OpName}.{task}.{stream}."
                             "{timestamp}.{input|output}.{slot}.{format}.{dtype}.npy); kept as it is");
      continue;
    }
    NpyFile npy(path);
    if (npy.status() == NpyFile::Status::kTruncated && !opts.final_pass) continue;  // may be in progress
    if (npy.status() != NpyFile::Status::kOk) {
      res.problems.push_back(path + ": " + npy.error() + "; no statistics written, the file is kept");
      continue;
    }
    const TensorView view = npy.view();
    TensorStats st = compute_stats(view, false);
    size_t data_size = view.nbytes();
    try {
      data_size = (size_t)view.numel() * dtype_size(dtype_from_name(n.dtype));
    } catch (const InvalidInput&) {
    }
    Row row;
    row.timestamp = std::strtoull(n.timestamp.c_str(), nullptr, 10);
    row.name = original;
    std::string& t = row.text;
    for (const std::string* f : {&n.op_type, &n.op_name, &n.task, &n.stream, &n.timestamp, &n.io, &n.slot}) {
      append_field(t, *f);
      t += ',';
    }
    t += std::to_string(data_size);
    t += ',';
    append_field(t, to_lower(n.dtype));
    t += ",\"(";
    for (size_t i = 0; i < view.shape.size(); ++i) {
      if (i) t += ',';
      t += std::to_string(view.shape[i]);
    }
    t += ")\",";
    for (const std::string& c : opts.categories) {
      if (c == "max")
        append_stat(t, st.max);
      else if (c == "min")
        append_stat(t, st.min);
      else if (c == "avg")
        append_stat(t, st.mean);
      else if (c == "l2norm")
        append_stat(t, st.norm);
      else if (c == "md5") {
        Md5 md5;
        if (view.is_contiguous()) {
          md5.update(view.data, view.nbytes());
        } else {
          std::vector<char> buf(view.nbytes());
          view.copy_contiguous(buf.data());
          md5.update(buf.data(), buf.size());
        }
        t += md5.hex_digest();
      }
      t += ',';
    }
    t += '\n';
    rows.push_back(std::move(row));
    done.push_back(path);
  }
  if (rows.empty()) return;
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    return a.timestamp != b.timestamp ? a.timestamp < b.timestamp : a.name < b.name;
  });
  std::string body;
  for (const Row& r : rows) body += r.text;
  std::string err;
  const std::string csv = dir + "/statistic.csv";
  if (!append_all(csv, header, body, err)) {
    res.problems.push_back(csv + ": cannot write (" + err + "); the tensors are kept");
    return;
  }
  for (const std::string& p : done) ::unlink(p.c_str());
  res.converted += done.size();
}

}  // namespace

std::vector<std::string> kernel_statistic_categories(const DumpConfig& cfg) {
  std::vector<std::string> cats;
  if (!cfg.summary_mode_list.empty()) {
    for (const std::string& item : cfg.summary_mode_list) cats.push_back(item == "mean" ? "avg" : item);
    return cats;
  }
  cats = {"max", "min", "avg", "l2norm"};
  if (cfg.summary_mode == "md5") cats.push_back("md5");
  return cats;
}

std::string kernel_statistic_header(const std::vector<std::string>& categories) {
  std::string h = kCommonHeader;
  for (const std::string& c : categories) {
    auto it = kColumnNames.find(c);
    if (it == kColumnNames.end()) {
      throw InvalidInput("statistic category \"" + c + "\" must be one of max, min, avg, l2norm, md5");
    }
    h += ',';
    h += it->second;
  }
  return h;
}

KernelStatResult convert_kernel_tensor_dump(const std::string& dump_path, const KernelStatOptions& opts) {
  KernelStatResult res;
  const std::string header = kernel_statistic_header(opts.categories);
  for_each_iteration_folder(dump_path,
                            [&](const std::string& dir) { convert_folder(dir, opts, header, res); });
  return res;
}

}  // namespace msprobe
