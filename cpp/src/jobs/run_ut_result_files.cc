// run_ut's two CSV files: create, append per API, repair on resume, reorder.
#include "msprobe/jobs/run_ut_result_files.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <unordered_map>
#include <unordered_set>

#include "msprobe/base/atomic_file.h"
#include "msprobe/base/error.h"
#include "msprobe/base/strings.h"
#include "msprobe/check/csv_table.h"

namespace msprobe {
namespace runut {

namespace {

const char kBom[] = "\xEF\xBB\xBF";

std::string errno_text(int e) { return std::strerror(e); }

void write_all(int fd, const char* data, size_t size, const std::string& path) {
  while (size > 0) {
    ssize_t n = ::write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw FileError(path + ": cannot write: " + errno_text(errno));
    }
    data += n;
    size -= (size_t)n;
  }
}

// One CSV record of a file: [begin, end) including its line break.
struct Record {
  size_t begin = 0, end = 0;
  std::string first;      // the first field, unquoted
  bool complete = false;  // ends with a line break outside quotes
};

// Splits text (after the BOM) into records. Quote-aware as Python's csv module: a '"' opens a
// quoted field only at the start of a field, and quoted fields may hold line breaks.
std::vector<Record> scan_records(const std::string& s, size_t start) {
  std::vector<Record> out;
  size_t i = start;
  const size_t n = s.size();
  while (i < n) {
    if (s[i] == '\n' || s[i] == '\r') {  // empty line
      ++i;
      continue;
    }
    Record r;
    r.begin = i;
    size_t field = 0;
    bool field_start = true, in_quotes = false;
    while (i < n) {
      const char c = s[i];
      if (in_quotes) {
        if (c == '"') {
          if (i + 1 < n && s[i + 1] == '"') {
            if (field == 0) r.first.push_back('"');
            i += 2;
            continue;
          }
          in_quotes = false;
          ++i;
          continue;
        }
        if (field == 0) r.first.push_back(c);
        ++i;
        continue;
      }
      if (field_start && c == '"') {
        in_quotes = true;
        field_start = false;
        ++i;
        continue;
      }
      field_start = false;
      if (c == ',') {
        ++field;
        field_start = true;
        ++i;
        continue;
      }
      if (c == '\n' || c == '\r') {
        if (c == '\r' && i + 1 < n && s[i + 1] == '\n') ++i;
        ++i;
        r.complete = true;
        break;
      }
      if (field == 0) r.first.push_back(c);
      ++i;
    }
    r.end = i;
    out.push_back(std::move(r));
  }
  return out;
}

std::string read_file(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) {
    const int e = errno;
    if (e == ELOOP) throw FileError(path + ": is a symbolic link, which is refused");
    throw FileError(path + ": cannot open: " + errno_text(e));
  }
  std::string text;
  char buf[1 << 16];
  for (;;) {
    ssize_t got = ::read(fd, buf, sizeof(buf));
    if (got < 0) {
      if (errno == EINTR) continue;
      const int e = errno;
      ::close(fd);
      throw FileError(path + ": cannot read: " + errno_text(e));
    }
    if (got == 0) break;
    text.append(buf, (size_t)got);
  }
  ::close(fd);
  return text;
}

size_t bom_size(const std::string& s) { return s.compare(0, 3, kBom) == 0 ? 3 : 0; }

std::string header_text(const std::vector<std::string>& header) {
  std::string s = kBom;
  check::append_csv_row(s, header);
  return s;
}

// Parses the header record's fields with the CSV reader.
std::vector<std::string> header_fields(const std::string& text, const Record& r) {
  check::CsvTable t = check::CsvTable::parse(text.substr(r.begin, r.end - r.begin), "header");
  std::vector<std::string> out;
  for (auto f : t.header()) out.emplace_back(f);
  return out;
}

// Replaced whole and fsynced: a kill or a power cut leaves the old file or the new one.
void atomic_replace(const std::string& path, const std::string& text) {
  AtomicFile file(path, 0640);
  file.append(text);
  file.commit(/*durable=*/true);
}

void check_resume_file(const std::string& path, const char* what) {
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0) {
    throw FileError(path + ": " + what + " not found: " + errno_text(errno));
  }
  if (S_ISLNK(st.st_mode)) throw FileError(path + ": is a symbolic link, which is refused");
  if (!S_ISREG(st.st_mode)) throw FileError(path + ": is not a regular file");
  if (::access(path.c_str(), R_OK | W_OK) != 0) {
    throw FileError(path + ": must be readable and writable: " + errno_text(errno));
  }
}

int open_append(const std::string& path, const std::vector<std::string>& header) {
  int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0640);
  if (fd < 0) {
    const int e = errno;
    if (e == ELOOP) throw FileError(path + ": is a symbolic link, which is refused");
    throw FileError(path + ": cannot open for writing: " + errno_text(e));
  }
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw FileError(path + ": is not a regular file");
  }
  if (st.st_size == 0) {
    // New (or empty) file: write the header under the lock, re-checking the size so that two
    // processes opening it at once write it once.
    ::flock(fd, LOCK_EX);
    if (::fstat(fd, &st) == 0 && st.st_size == 0) {
      ::fchmod(fd, 0640);
      const std::string h = header_text(header);
      try {
        write_all(fd, h.data(), h.size(), path);
      } catch (...) {
        ::flock(fd, LOCK_UN);
        ::close(fd);
        throw;
      }
    }
    ::flock(fd, LOCK_UN);
  }
  return fd;
}

}  // namespace

const std::vector<std::string>& result_header(CsvLayout layout) {
  static const std::vector<std::string> h{"API name", "Forward Test Success", "Backward Test Success",
                                          "Message"};
  static const std::vector<std::string> ms{"API Name", "Forward Test Success", "Backward Test Success",
                                           "Message"};
  return layout == CsvLayout::kMindSpore ? ms : h;
}

const std::vector<std::string>& details_header(CsvLayout layout) {
  static const std::vector<std::string> ms{"API Name",  "Bench Dtype",    "Tested Dtype", "Shape",  "Cosine",
                                           "MaxAbsErr", "MaxRelativeErr", "Status",       "Message"};
  if (layout == CsvLayout::kMindSpore) return ms;
  static const std::vector<std::string> h{"API Name",
                                          "Bench Dtype",
                                          "DEVICE Dtype",
                                          "Shape",
                                          "余弦相似度",
                                          "最大绝对误差",
                                          "双百指标",
                                          "双千指标",
                                          "双万指标",
                                          "二进制一致错误率",
                                          "误差均衡性",
                                          "均方根误差",
                                          "小值域错误占比",
                                          "相对误差最大值",
                                          "相对误差平均值",
                                          "inf/nan错误率",
                                          "相对误差错误率",
                                          "绝对误差错误率",
                                          "ULP误差最大值",
                                          "ULP误差平均值",
                                          "ULP误差大于阈值占比",
                                          "Status",
                                          "Message"};
  return h;
}

std::string_view details_row_api(std::string_view row_name) {
  size_t end = row_name.size();
  for (int k = 0; k < 3; ++k) {
    const size_t dot = row_name.rfind('.', end == 0 ? 0 : end - 1);
    if (dot == std::string_view::npos || end == 0) return row_name;
    end = dot;
  }
  return row_name.substr(0, end);
}

ResultWriter::ResultWriter(const std::string& result_path, const std::string& details_path, CsvLayout layout)
    : result_path_(result_path), details_path_(details_path) {
  details_fd_ = open_append(details_path, details_header(layout));
  try {
    result_fd_ = open_append(result_path, result_header(layout));
  } catch (...) {
    ::close(details_fd_);
    details_fd_ = -1;
    throw;
  }
}

ResultWriter::~ResultWriter() { close(); }

void ResultWriter::close() {
  if (details_fd_ >= 0) ::close(details_fd_);
  if (result_fd_ >= 0) ::close(result_fd_);
  details_fd_ = result_fd_ = -1;
}

void ResultWriter::write(const ApiResult& result) {
  std::string details, row;
  result.append_details_csv(details);
  result.append_result_csv(row);
  write_text(details, row);
}

void ResultWriter::write_text(const std::string& details, const std::string& result) {
  if (details_fd_ < 0 || result_fd_ < 0) throw FileError(result_path_ + ": writer is closed");
  // The lock orders whole APIs between processes sharing the files (multi_run_ut).
  while (::flock(details_fd_, LOCK_EX) != 0 && errno == EINTR) {
  }
  try {
    if (!details.empty()) write_all(details_fd_, details.data(), details.size(), details_path_);
    write_all(result_fd_, result.data(), result.size(), result_path_);
  } catch (...) {
    ::flock(details_fd_, LOCK_UN);
    throw;
  }
  ::flock(details_fd_, LOCK_UN);
}

ResumeReport prepare_resume(const std::string& result_path, const std::string& details_path,
                            CsvLayout layout) {
  check_resume_file(result_path, "result csv");
  check_resume_file(details_path, "details csv");
  ResumeReport rep;

  const std::string rtext = read_file(result_path);
  const size_t rb = bom_size(rtext);
  std::vector<Record> rrec = scan_records(rtext, rb);
  std::string new_result;
  bool result_changed = false;
  std::unordered_set<std::string> done;
  if (rrec.empty()) {
    new_result = header_text(result_header(layout));
    result_changed = true;
  } else {
    if (!rrec[0].complete) {
      throw InvalidInput(result_path + ": the header line is incomplete; not a run_ut result file");
    }
    if (header_fields(rtext, rrec[0]) != result_header(layout)) {
      throw InvalidInput(result_path + ": not a run_ut result file: the header must be \"" +
                         join(result_header(layout), ",") + "\"");
    }
    new_result = header_text(result_header(layout));
    for (size_t k = 1; k < rrec.size(); ++k) {
      const Record& r = rrec[k];
      if (!r.complete) {
        rep.truncated_torn_record = true;
        result_changed = true;
        continue;
      }
      if (!done.insert(r.first).second) {
        ++rep.dropped_result_rows;
        result_changed = true;
        continue;
      }
      rep.done.push_back(r.first);
      new_result.append(rtext, r.begin, r.end - r.begin);
    }
    if (rb == 0) result_changed = true;  // restore the BOM
  }

  const std::string dtext = read_file(details_path);
  const size_t db = bom_size(dtext);
  std::vector<Record> drec = scan_records(dtext, db);
  std::string new_details = header_text(details_header(layout));
  bool details_changed = false;
  if (drec.empty()) {
    details_changed = true;
  } else {
    if (!drec[0].complete || header_fields(dtext, drec[0]) != details_header(layout)) {
      throw InvalidInput(details_path + ": not a run_ut details file: the header must be the " +
                         std::to_string(details_header(layout).size()) + " columns \"API Name,Bench Dtype," +
                         details_header(layout)[2] + ",Shape,...,Status,Message\"");
    }
    if (db == 0) details_changed = true;
    for (size_t k = 1; k < drec.size(); ++k) {
      const Record& r = drec[k];
      if (!r.complete) {
        rep.truncated_torn_record = true;
        details_changed = true;
        continue;
      }
      if (!done.count(std::string(details_row_api(r.first)))) {
        ++rep.dropped_detail_rows;
        details_changed = true;
        continue;
      }
      new_details.append(dtext, r.begin, r.end - r.begin);
    }
  }
  // Details first: a crash between the two replacements leaves a state this function repairs.
  if (details_changed) atomic_replace(details_path, new_details);
  if (result_changed) atomic_replace(result_path, new_result);
  return rep;
}

void reorder_result_files(const std::string& result_path, const std::string& details_path,
                          const std::vector<std::string>& order) {
  std::unordered_map<std::string, size_t> rank;
  rank.reserve(order.size());
  for (size_t i = 0; i < order.size(); ++i) rank.emplace(order[i], i);
  auto reorder = [&](const std::string& path, bool details) {
    const std::string text = read_file(path);
    const size_t b = bom_size(text);
    std::vector<Record> rec = scan_records(text, b);
    if (rec.size() <= 2) return;
    std::vector<size_t> idx;
    for (size_t k = 1; k < rec.size(); ++k) idx.push_back(k);
    auto key = [&](size_t k) {
      const std::string api = details ? std::string(details_row_api(rec[k].first)) : rec[k].first;
      auto it = rank.find(api);
      return it == rank.end() ? order.size() : it->second;
    };
    std::vector<size_t> keys(rec.size());
    for (size_t k : idx) keys[k] = key(k);
    std::stable_sort(idx.begin(), idx.end(), [&](size_t x, size_t y) { return keys[x] < keys[y]; });
    bool same = true;
    for (size_t k = 0; k < idx.size(); ++k) same = same && idx[k] == k + 1;
    if (same) return;
    std::string out(text, 0, rec[0].end);
    for (size_t k : idx) {
      out.append(text, rec[k].begin, rec[k].end - rec[k].begin);
      if (!rec[k].complete) out += "\r\n";
    }
    atomic_replace(path, out);
  };
  reorder(details_path, true);
  reorder(result_path, false);
}

}  // namespace runut
}  // namespace msprobe
