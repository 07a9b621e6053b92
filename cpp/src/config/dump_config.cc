// config.json (reference data-dump §1): defaults, types and every validation rule.
//
// Every error is ONE line: `<where>: "<dotted.field>" <rule naming what is allowed>, got <value>`,
// where <where> is the config file path for file values and "argument" for constructor
// overrides. Only the section named by the effective task is read and validated; unknown keys
// are ignored, as the original does.
//
// Section choice: the effective task (constructor override, else the file's task) selects the
// section for both frameworks. The original MindSpore debugger picks the section from the
// file's task before applying the override; we follow PyTorch's rule (see docs/compatibility.md).
#include "msprobe/config/dump_config.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "msprobe/base/error.h"
#include "msprobe/base/strings.h"
#include "msprobe/format/json_text.h"
#include "msprobe/format/py_value.h"

namespace msprobe {
namespace {

using StrList = std::vector<std::string>;

const StrList kTasksPyTorch = {"tensor",         "statistics", "overflow_check",
                               "free_benchmark", "run_ut",     "grad_probe"};
const StrList kTasksMindSpore = {"tensor", "statistics", "overflow_check", "free_benchmark", "grad_probe"};
const StrList kLevels = {"L0", "L1", "L2", "mix"};
const StrList kDataModes = {"all", "input", "output", "forward", "backward"};
const StrList kSummaryModes = {"statistics", "md5"};
const StrList kSummaryModeItems = {"md5", "max", "min", "mean", "l2norm"};
const StrList kFileFormats = {"npy", "bin"};
const StrList kCheckModes = {"all", "aicore", "atomic"};
const StrList kHandlerTypes = {"check", "fix"};
const StrList kFuzzStages = {"forward", "backward"};
const StrList kGradLevels = {"L0", "L1", "L2"};

constexpr int64_t kMaxRankStep = 1000000;
constexpr size_t kMaxPathLength = 4096;
constexpr size_t kMaxPathComponent = 255;
constexpr size_t kMaxShown = 120;  // characters of a bad value shown in a message

bool is_listed(const StrList& items, const std::string& s) {
  return std::find(items.begin(), items.end(), s) != items.end();
}

// Compact JSON rendering of a value for "got ..." (truncated).
void render(const JsonValue& v, std::string& out) {
  if (out.size() > kMaxShown) return;
  switch (v.type()) {
    case JsonValue::Type::kNull: out += "null"; break;
    case JsonValue::Type::kBool: out += v.as_bool() ? "true" : "false"; break;
    case JsonValue::Type::kInt: append_int(out, v.as_int()); break;
    case JsonValue::Type::kFloat: append_python_float(out, v.as_double()); break;
    case JsonValue::Type::kString: append_json_string(out, v.as_string()); break;
    case JsonValue::Type::kArray: {
      out += '[';
      bool first = true;
      for (const auto& item : v.as_array()) {
        if (!first) out += ", ";
        first = false;
        render(item, out);
        if (out.size() > kMaxShown) return;
      }
      out += ']';
      break;
    }
    case JsonValue::Type::kObject: {
      out += '{';
      bool first = true;
      for (const auto& kv : v.as_object()) {
        if (!first) out += ", ";
        first = false;
        append_json_string(out, kv.first);
        out += ": ";
        render(kv.second, out);
        if (out.size() > kMaxShown) return;
      }
      out += '}';
      break;
    }
  }
}

std::string shown(const JsonValue& v) {
  std::string out;
  render(v, out);
  if (out.size() > kMaxShown) {
    out.resize(kMaxShown);
    // Do not cut a UTF-8 sequence in half.
    while (!out.empty() && ((unsigned char)out.back() & 0xC0) == 0x80) out.pop_back();
    if (!out.empty() && (unsigned char)out.back() >= 0xC0) out.pop_back();
    out += "...";
  }
  return out;
}

std::string quoted(const std::string& field) { return "\"" + field + "\""; }

std::string item_field(const std::string& field, size_t i) { return field + "[" + std::to_string(i) + "]"; }

// Throws InvalidInput without a location prefix; Checker adds it.
[[noreturn]] void bad(const std::string& field, const std::string& rule, const JsonValue& got) {
  throw InvalidInput(quoted(field) + " " + rule + ", got " + shown(got));
}

bool is_plain_int(const JsonValue& v) { return v.is_int(); }  // bool is its own type

// Parses "a-b" with a, b decimal digits only; false when the text has another form.
bool parse_range_text(const std::string& s, int64_t& a, int64_t& b) {
  size_t dash = s.find('-');
  if (dash == std::string::npos || dash == 0 || dash + 1 >= s.size()) return false;
  auto num = [](const std::string& t, size_t from, size_t to, int64_t& out) {
    if (to - from > 9) {  // more digits than any allowed value: reject as out of range
      for (size_t i = from; i < to; ++i)
        if (t[i] < '0' || t[i] > '9') return false;
      out = kMaxRankStep + 1;
      return true;
    }
    int64_t v = 0;
    for (size_t i = from; i < to; ++i) {
      if (t[i] < '0' || t[i] > '9') return false;
      v = v * 10 + (t[i] - '0');
    }
    out = v;
    return true;
  };
  return num(s, 0, dash, a) && num(s, dash + 1, s.size(), b);
}

// ---- name patterns of scope entries (§5.6) -------------------------------------------
const char* kApiExample = "\"Functional.conv2d.0.forward\"";
const char* kModuleExample = "\"Module.conv1.Conv2d.forward.0\"";

// Strips a trailing ".<digits>" (at least one digit); false when there is none.
bool strip_index(std::string_view& s) {
  size_t dot = s.rfind('.');
  if (dot == std::string_view::npos || dot + 1 == s.size()) return false;
  for (size_t i = dot + 1; i < s.size(); ++i)
    if (s[i] < '0' || s[i] > '9') return false;
  s = s.substr(0, dot);
  return true;
}
bool strip_direction(std::string_view& s) {
  for (std::string_view d : {std::string_view(".forward"), std::string_view(".backward")}) {
    if (ends_with(s, d)) {
      s.remove_suffix(d.size());
      return true;
    }
  }
  return false;
}
// Strips "<one of prefixes>." from the front; false when none matches.
bool strip_prefix(std::string_view& s, std::initializer_list<std::string_view> prefixes) {
  for (std::string_view p : prefixes) {
    if (starts_with(s, p) && s.size() > p.size() && s[p.size()] == '.') {
      s.remove_prefix(p.size() + 1);
      return true;
    }
  }
  return false;
}
bool has_line_break(std::string_view s) { return s.find_first_of("\r\n") != std::string_view::npos; }

// ^(Distributed|Functional|Torch|Tensor|Mint|MintFunctional|Primitive|Aten|VF|NPU|Jit)\..*\.\d+\.(forward|backward)$
bool is_api_name(const std::string& name) {
  std::string_view s(name);
  if (has_line_break(s)) return false;
  if (!strip_prefix(s, {"Distributed", "Functional", "Torch", "Tensor", "Mint", "MintFunctional", "Primitive",
                        "Aten", "VF", "NPU", "Jit"})) {
    return false;
  }
  // The remainder must be ".*" followed by ".<digits>.<direction>".
  return strip_direction(s) && strip_index(s);
}

// ^(Cell|Module)\..*\.(forward|backward)\.\d+$
bool is_module_name(const std::string& name) {
  std::string_view s(name);
  if (has_line_break(s)) return false;
  if (!strip_prefix(s, {"Cell", "Module"})) return false;
  return strip_index(s) && strip_direction(s);
}

// Reads the fields of one place (the file, or the constructor arguments) and prefixes errors.
class Checker {
 public:
  Checker(std::string where, Framework fw) : where_(std::move(where)), fw_(fw) {}

  // Runs fn; an InvalidInput from it gets this checker's location prefix.
  template <class F>
  auto wrap(F&& fn) const -> decltype(fn()) {
    try {
      return fn();
    } catch (const InvalidInput& e) {
      throw InvalidInput(where_ + ": " + e.what());
    }
  }

  [[noreturn]] void fail(const std::string& message) const { throw InvalidInput(where_ + ": " + message); }

  std::string one_of(const JsonValue& v, const std::string& field, const StrList& allowed) const {
    if (!v.is_string() || !is_listed(allowed, v.as_string())) {
      fail_value(field, "must be one of " + join(allowed, ", "), v);
    }
    return v.as_string();
  }

  bool boolean(const JsonValue& v, const std::string& field) const {
    if (!v.is_bool()) fail_value(field, "must be true or false", v);
    return v.as_bool();
  }

  int64_t integer(const JsonValue& v, const std::string& field,
                  const char* rule = "must be an integer") const {
    if (!is_plain_int(v)) fail_value(field, rule, v);
    return v.as_int();
  }

  StrList string_list(const JsonValue& v, const std::string& field) const {
    if (!v.is_array()) fail_value(field, "must be a list of strings", v);
    StrList out;
    out.reserve(v.as_array().size());
    for (size_t i = 0; i < v.as_array().size(); ++i) {
      const JsonValue& item = v.as_array()[i];
      if (!item.is_string()) fail_value(item_field(field, i), "must be a string", item);
      out.push_back(item.as_string());
    }
    return out;
  }

  std::string dump_path(const JsonValue& v, const std::string& field) const {
    if (!v.is_string()) fail_value(field, "must be a string (a path)", v);
    const std::string& s = v.as_string();
    const char* allowed_chars = "letters, digits and the characters _ . / - (no spaces or non-ASCII)";
    if (s.empty()) fail_value(field, std::string("must be a non-empty path made of ") + allowed_chars, v);
    for (unsigned char c : s) {
      bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                c == '.' || c == '/' || c == '-';
      if (!ok) fail_value(field, std::string("may only contain ") + allowed_chars, v);
    }
    if (s.size() > kMaxPathLength) {
      fail(quoted(field) + " must be at most " + std::to_string(kMaxPathLength) + " characters long, got " +
           std::to_string(s.size()) + " characters");
    }
    size_t start = 0;
    while (start <= s.size()) {
      size_t slash = s.find('/', start);
      if (slash == std::string::npos) slash = s.size();
      if (slash - start > kMaxPathComponent) {
        fail(quoted(field) + " must have path components of at most " + std::to_string(kMaxPathComponent) +
             " characters, got one of " + std::to_string(slash - start) + " characters");
      }
      start = slash + 1;
    }
    return s;
  }

  std::vector<int64_t> ranges(const JsonValue& v, const std::string& field) const {
    return wrap([&] { return parse_int_ranges(v, field); });
  }

  [[noreturn]] void fail_value(const std::string& field, const std::string& rule,
                               const JsonValue& got) const {
    fail(quoted(field) + " " + rule + ", got " + shown(got));
  }

  Framework framework() const { return fw_; }

 private:
  std::string where_;
  Framework fw_;
};

// data_mode (§1.4, §5.7).
StrList parse_data_mode(const Checker& ck, const JsonValue& v, const std::string& field, bool ms_l2) {
  const std::string allowed = join(kDataModes, ", ");
  if (!v.is_array()) ck.fail_value(field, "must be a list drawn from " + allowed, v);
  const auto& arr = v.as_array();
  StrList modes;
  for (size_t i = 0; i < arr.size(); ++i) {
    const JsonValue& item = arr[i];
    if (!item.is_string() || !is_listed(kDataModes, item.as_string())) {
      ck.fail_value(item_field(field, i), "must be one of " + allowed, item);
    }
    modes.push_back(item.as_string());
  }
  if (modes.empty()) ck.fail_value(field, "must hold at least one of " + allowed, v);
  if (modes.size() > 4) ck.fail_value(field, "cannot exceed 4 items (drawn from " + allowed + ")", v);
  for (size_t i = 0; i < modes.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (modes[i] == modes[j]) ck.fail_value(field, "must not repeat an item (allowed: " + allowed + ")", v);
    }
  }
  if (modes.size() > 1 && is_listed(modes, "all")) {
    ck.fail_value(
        field, "may hold \"all\" only on its own; otherwise items from input, output, forward, backward", v);
  }
  if (ms_l2) {
    if (modes.size() != 1 || !(modes[0] == "all" || modes[0] == "input" || modes[0] == "output")) {
      ck.fail_value(field, "must be exactly one of all, input, output when \"level\" is L2 (MindSpore)", v);
    }
  }
  return modes;
}

void check_scope_and_list(const Checker& ck, DumpConfig& c, const std::string& sec, bool pytorch) {
  const std::string scope_field = sec + ".scope";
  const std::string list_field = sec + ".list";
  auto scope_json = [&] {
    JsonValue::Array a;
    for (const auto& s : c.scope) a.push_back(JsonValue::make_string(s));
    return JsonValue::make_array(std::move(a));
  };
  auto list_json = [&] {
    JsonValue::Array a;
    for (const auto& s : c.list) a.push_back(JsonValue::make_string(s));
    return JsonValue::make_array(std::move(a));
  };
  if (c.level == "L2" && pytorch) {
    if (!c.scope.empty()) {
      ck.fail_value(scope_field,
                    "must be empty when \"level\" is L2 (name the API in \"" + list_field + "\")",
                    scope_json());
    }
    if (c.list.size() != 1) {
      ck.fail_value(
          list_field,
          std::string("must hold exactly one full API name when \"level\" is L2, e.g. [") + kApiExample + "]",
          list_json());
    }
    if (!is_api_name(c.list[0])) {
      ck.fail_value(item_field(list_field, 0),
                    std::string("must be a full API name when \"level\" is L2, e.g. ") + kApiExample,
                    JsonValue::make_string(c.list[0]));
    }
    return;
  }
  if (c.scope.empty()) return;
  if (c.scope.size() != 2) {
    ck.fail_value(scope_field, "must be empty or hold exactly 2 names (the first and the last of the range)",
                  scope_json());
  }
  if (c.level == "L2") return;  // MindSpore L2: kernel names, no pattern.
  for (size_t i = 0; i < 2; ++i) {
    const std::string& name = c.scope[i];
    const JsonValue got = JsonValue::make_string(name);
    if (c.level == "L1" && !is_api_name(name)) {
      ck.fail_value(
          item_field(scope_field, i),
          std::string("must be an API name when \"level\" is L1: Prefix.api.N.forward|backward with "
                      "Prefix one of Distributed, Functional, Torch, Tensor, Mint, MintFunctional, "
                      "Primitive, Aten, VF, NPU, Jit, e.g. ") +
              kApiExample,
          got);
    }
    if (c.level == "L0" && !is_module_name(name)) {
      ck.fail_value(item_field(scope_field, i),
                    std::string("must be a module name when \"level\" is L0: Module|Cell.path.Class.forward|"
                                "backward.N, e.g. ") +
                        kModuleExample,
                    got);
    }
    if (c.level == "mix" && !is_api_name(name) && !is_module_name(name)) {
      ck.fail_value(item_field(scope_field, i),
                    std::string("must be an API name (e.g. ") + kApiExample + ") or a module name (e.g. " +
                        kModuleExample + ") when \"level\" is mix",
                    got);
    }
  }
}

// statistics / tensor / overflow_check.
void parse_dump_section(const Checker& ck, const JsonValue* sec, DumpConfig& c) {
  const bool pytorch = ck.framework() == Framework::kPyTorch;
  const std::string& t = c.task;
  if (sec) {
    if (const JsonValue* v = sec->find("scope")) c.scope = ck.string_list(*v, t + ".scope");
    if (const JsonValue* v = sec->find("list")) c.list = ck.string_list(*v, t + ".list");
    // MindSpore's overflow_check always collects everything (1.2.1 sets data_mode ["all"]).
    const bool ms_overflow = !pytorch && t == "overflow_check";
    if (const JsonValue* v = sec->find("data_mode"); v && !ms_overflow) {
      c.data_mode = parse_data_mode(ck, *v, t + ".data_mode", !pytorch && c.level == "L2");
    }
    if (t == "statistics") {
      if (const JsonValue* v = sec->find("summary_mode")) {
        const std::string field = t + ".summary_mode";
        if (pytorch || !v->is_array()) {
          if (!v->is_string() || !is_listed(kSummaryModes, v->as_string())) {
            ck.fail_value(field,
                          pytorch ? "must be one of " + join(kSummaryModes, ", ")
                                  : "must be one of " + join(kSummaryModes, ", ") +
                                        ", or a list drawn from " + join(kSummaryModeItems, ", "),
                          *v);
          }
          c.summary_mode = v->as_string();
        } else {
          StrList items;
          const auto& arr = v->as_array();
          for (size_t i = 0; i < arr.size(); ++i) {
            const JsonValue& item = arr[i];
            if (!item.is_string() || !is_listed(kSummaryModeItems, item.as_string())) {
              ck.fail_value(item_field(field, i), "must be one of " + join(kSummaryModeItems, ", "), item);
            }
            if (is_listed(items, item.as_string())) {
              ck.fail_value(field, "must not repeat an item (allowed: " + join(kSummaryModeItems, ", ") + ")",
                            *v);
            }
            items.push_back(item.as_string());
          }
          if (items.empty()) items = {"max", "min", "mean", "l2norm"};  // documented meaning of []
          c.summary_mode_list = std::move(items);
        }
      }
    }
    if (t == "tensor") {
      if (const JsonValue* v = sec->find("file_format"))
        c.file_format = ck.one_of(*v, t + ".file_format", kFileFormats);
      // 1.2.1 (PyTorch) sends each API's inputs to a GPU host (TCP/TLS or a shared folder) for
      // run_ut there instead of writing tensors. That transport is not implemented: refusing it
      // beats a full tensor dump the user did not ask for. MindSpore 1.2.1 has no such key.
      if (const JsonValue* v = sec->find("online_run_ut"); v && pytorch) {
        const std::string field = t + ".online_run_ut";
        if (ck.boolean(*v, field)) {
          ck.fail(quoted(field) +
                  " is true, but online run_ut (the NPU host sending each API's inputs to a GPU host "
                  "that runs them) is not supported by this version; set it to false (or remove it) "
                  "to dump the tensors, then run `msprobe -f pytorch run_ut -api_info <dump.json>` "
                  "on the GPU host");
        }
      }
    }
    if (t == "overflow_check") {
      if (const JsonValue* v = sec->find("overflow_nums")) {
        const std::string field = t + ".overflow_nums";
        if (pytorch) {
          // 1.2.1 (PyTorch) checks only the type and reads 0 as the default 1; a value below -1
          // would end the dump before it starts, so it is refused here (docs/compatibility.md).
          const char* rule = "must be -1 (no limit) or an integer >= 0 (0 means 1)";
          c.overflow_nums = ck.integer(*v, field, rule);
          if (c.overflow_nums < -1) ck.fail_value(field, rule, *v);
          if (c.overflow_nums == 0) c.overflow_nums = 1;
        } else {
          const char* rule = "must be -1 (no limit) or an integer > 0";
          c.overflow_nums = ck.integer(*v, field, rule);
          if (c.overflow_nums != -1 && c.overflow_nums <= 0) ck.fail_value(field, rule, *v);
        }
      }
      if (const JsonValue* v = sec->find("check_mode"))
        c.check_mode = ck.one_of(*v, t + ".check_mode", kCheckModes);
    }
  }
  check_scope_and_list(ck, c, t, pytorch);
}

void parse_free_benchmark(const Checker& ck, const JsonValue* sec, DumpConfig& c) {
  const bool pytorch = ck.framework() == Framework::kPyTorch;
  FreeBenchmarkConfig& fb = c.free_benchmark;
  const std::string p = "free_benchmark.";
  const StrList devices = pytorch ? StrList{"npu", "cpu"} : StrList{"npu"};
  const StrList pert_modes =
      pytorch ? StrList{"improve_precision", "add_noise", "bit_noise", "no_change", "change_value", "to_cpu"}
              : StrList{"improve_precision", "add_noise", "bit_noise", "no_change", "change_value"};
  if (sec) {
    if (const JsonValue* v = sec->find("scope")) fb.scope = ck.string_list(*v, p + "scope");
    if (const JsonValue* v = sec->find("list")) fb.list = ck.string_list(*v, p + "list");
    if (const JsonValue* v = sec->find("fuzz_device"))
      fb.fuzz_device = ck.one_of(*v, p + "fuzz_device", devices);
    if (const JsonValue* v = sec->find("pert_mode"))
      fb.pert_mode = ck.one_of(*v, p + "pert_mode", pert_modes);
    if (const JsonValue* v = sec->find("handler_type"))
      fb.handler_type = ck.one_of(*v, p + "handler_type", kHandlerTypes);
    if (const JsonValue* v = sec->find("fuzz_level")) fb.fuzz_level = ck.one_of(*v, p + "fuzz_level", {"L1"});
    if (const JsonValue* v = sec->find("fuzz_stage"))
      fb.fuzz_stage = ck.one_of(*v, p + "fuzz_stage", kFuzzStages);
    if (const JsonValue* v = sec->find("if_preheat")) fb.if_preheat = ck.boolean(*v, p + "if_preheat");
    if (const JsonValue* v = sec->find("preheat_step")) {
      fb.preheat_step = ck.integer(*v, p + "preheat_step", "must be an integer > 0");
      if (fb.preheat_step <= 0) ck.fail_value(p + "preheat_step", "must be an integer > 0", *v);
    }
    if (const JsonValue* v = sec->find("max_sample")) {
      fb.max_sample = ck.integer(*v, p + "max_sample", "must be an integer > 0");
      if (fb.max_sample <= 0) ck.fail_value(p + "max_sample", "must be an integer > 0", *v);
    }
    if (const JsonValue* v = sec->find("data_mode"))
      c.data_mode = parse_data_mode(ck, *v, p + "data_mode", false);
  }
  if (pytorch && !fb.scope.empty() && !fb.list.empty()) {
    ck.fail(
        "\"free_benchmark.scope\" and \"free_benchmark.list\" cannot both be set: give exact API names in "
        "scope, or name substrings in list");
  }
  if (pytorch && (fb.fuzz_device == "cpu") != (fb.pert_mode == "to_cpu")) {
    if (fb.pert_mode == "to_cpu") {
      ck.fail(
          "\"free_benchmark.fuzz_device\" must be cpu when \"free_benchmark.pert_mode\" is to_cpu, got \"" +
          fb.fuzz_device + "\"");
    }
    ck.fail("\"free_benchmark.fuzz_device\" cpu requires \"free_benchmark.pert_mode\" to_cpu, got \"" +
            fb.pert_mode + "\"");
  }
  if (fb.handler_type == "fix") {
    if (fb.pert_mode != "improve_precision" && fb.pert_mode != "to_cpu") {
      ck.fail(std::string("\"free_benchmark.pert_mode\" must be improve_precision") +
              (pytorch ? " or to_cpu" : "") + " when \"free_benchmark.handler_type\" is fix, got \"" +
              fb.pert_mode + "\"");
    }
    if (fb.fuzz_stage != "forward") {
      ck.fail(
          "\"free_benchmark.fuzz_stage\" must be forward when \"free_benchmark.handler_type\" is fix, got "
          "\"" +
          fb.fuzz_stage + "\"");
    }
    if (fb.if_preheat) {
      ck.fail(
          "\"free_benchmark.if_preheat\" must be false when \"free_benchmark.handler_type\" is fix, got "
          "true");
    }
  }
  c.scope = fb.scope;
  c.list = fb.list;
}

void parse_run_ut(const Checker& ck, const JsonValue* sec, DumpConfig& c) {
  RunUtConfig& ru = c.run_ut;
  if (!sec) return;
  if (const JsonValue* v = sec->find("white_list")) ru.white_list = ck.string_list(*v, "run_ut.white_list");
  if (const JsonValue* v = sec->find("black_list")) ru.black_list = ck.string_list(*v, "run_ut.black_list");
  if (const JsonValue* v = sec->find("error_data_path")) {
    const std::string field = "run_ut.error_data_path";
    if (!v->is_string() || v->as_string().empty())
      ck.fail_value(field, "must be a path to an existing directory", *v);
    struct stat st;
    if (::stat(v->as_string().c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
      ck.fail_value(field, "must be a path to an existing directory", *v);
    }
    ru.error_data_path = v->as_string();
  }
}

// 1.2.1's sentence for a bad grad_probe field, then which field and what it held.
[[noreturn]] void fail_grad(const Checker& ck, const std::string& sentence, const std::string& field,
                            const JsonValue& got) {
  ck.fail(sentence + " (" + quoted(field) + " is " + shown(got) + ")");
}

void parse_grad_probe(const Checker& ck, const JsonValue* sec, DumpConfig& c) {
  GradProbeConfig& gp = c.grad_probe;
  if (!sec) return;
  const bool pytorch = ck.framework() == Framework::kPyTorch;
  if (const JsonValue* v = sec->find("grad_level")) {
    if (!v->is_string() || !is_listed(kGradLevels, v->as_string()))
      fail_grad(ck, "grad_level must be one of dict_keys(['L0', 'L1', 'L2'])", "grad_probe.grad_level", *v);
    gp.grad_level = v->as_string();
  }
  if (const JsonValue* v = sec->find("param_list")) {
    if (!v->is_array()) fail_grad(ck, "param_list must be a list", "grad_probe.param_list", *v);
    gp.param_list = ck.string_list(*v, "grad_probe.param_list");
  }
  if (const JsonValue* v = sec->find("bounds")) {
    const std::string field = "grad_probe.bounds";
    // PyTorch's and MindSpore's checks have their own sentences in 1.2.1.
    const char* not_number =
        pytorch ? "bounds element is not int or float" : "The input list should only contain numbers";
    const char* not_ascending =
        pytorch ? "bounds list is not ascending" : "The input list should be ascending";
    if (!v->is_array()) fail_grad(ck, pytorch ? "bounds must be a list" : not_number, field, *v);
    // 1.2.1 accepts [] and then writes rows that do not fit the header (docs/compatibility.md).
    if (v->as_array().empty()) fail_grad(ck, "bounds must not be empty", field, *v);
    std::vector<double> bounds;
    std::vector<std::string> labels;
    for (size_t i = 0; i < v->as_array().size(); ++i) {
      const JsonValue& item = v->as_array()[i];
      if (!item.is_number()) fail_grad(ck, not_number, item_field(field, i), item);
      double d = item.as_double();
      // int64 range: [-2^63, 2^63); NaN fails both comparisons.
      if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0))
        fail_grad(ck, "bounds element is out of int64 range", item_field(field, i), item);
      if (!bounds.empty() && !(d > bounds.back())) fail_grad(ck, not_ascending, field, *v);
      bounds.push_back(d);
      labels.push_back(py_str(item));
    }
    gp.bounds = std::move(bounds);
    gp.bound_labels = std::move(labels);
  }
}

}  // namespace

std::vector<int64_t> parse_int_ranges(const JsonValue& v, const std::string& field) {
  const std::string limits = "0.." + std::to_string(kMaxRankStep);
  if (!v.is_array()) {
    bad(field, "must be a list of integers in " + limits + " and \"a-b\" range strings with a <= b", v);
  }
  std::vector<int64_t> out;
  const auto& arr = v.as_array();
  for (size_t i = 0; i < arr.size(); ++i) {
    const JsonValue& item = arr[i];
    const std::string rule = "must be an integer in " + limits + " or an \"a-b\" range string with a <= b";
    if (item.is_int()) {
      int64_t x = item.as_int();
      if (x < 0 || x > kMaxRankStep) bad(item_field(field, i), rule, item);
      out.push_back(x);
    } else if (item.is_string()) {
      int64_t a = 0, b = 0;
      if (!parse_range_text(item.as_string(), a, b) || a > b || b > kMaxRankStep) {
        bad(item_field(field, i), rule, item);
      }
      for (int64_t x = a; x <= b; ++x) out.push_back(x);
    } else {
      bad(item_field(field, i), rule, item);
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

DumpConfig parse_dump_config(const JsonValue& doc, Framework fw, const ConfigOverrides& ov,
                             const std::string& origin) {
  Checker file(origin, fw);
  Checker arg("argument", fw);
  if (!doc.is_object()) file.fail(std::string("the top level must be a JSON object, got ") + doc.type_name());
  const StrList& tasks = fw == Framework::kPyTorch ? kTasksPyTorch : kTasksMindSpore;

  DumpConfig c;
  // Common fields of the file (always validated, even when an argument overrides them).
  if (const JsonValue* v = doc.find("task")) c.task = file.one_of(*v, "task", tasks);
  if (const JsonValue* v = doc.find("dump_path")) c.dump_path = file.dump_path(*v, "dump_path");
  if (const JsonValue* v = doc.find("rank")) c.rank = file.ranges(*v, "rank");
  if (const JsonValue* v = doc.find("step")) c.step = file.ranges(*v, "step");
  if (const JsonValue* v = doc.find("level")) c.level = file.one_of(*v, "level", kLevels);
  if (const JsonValue* v = doc.find("enable_dataloader"))
    c.enable_dataloader = file.boolean(*v, "enable_dataloader");
  if (const JsonValue* v = doc.find("async_dump")) c.async_dump = file.boolean(*v, "async_dump");

  // Constructor arguments override the file.
  if (ov.task) c.task = arg.one_of(JsonValue::make_string(*ov.task), "task", tasks);
  if (ov.dump_path) c.dump_path = arg.dump_path(JsonValue::make_string(*ov.dump_path), "dump_path");
  if (ov.level) c.level = arg.one_of(JsonValue::make_string(*ov.level), "level", kLevels);
  if (ov.step) c.step = arg.ranges(*ov.step, "step");

  // The section of the effective task.
  const JsonValue* sec = doc.find(c.task);
  if (sec && !sec->is_object()) {
    file.fail_value(c.task, "must be an object holding the settings of task " + c.task, *sec);
  }
  if (c.task == "statistics" || c.task == "tensor" || c.task == "overflow_check") {
    parse_dump_section(file, sec, c);
  } else if (c.task == "free_benchmark") {
    parse_free_benchmark(file, sec, c);
  } else if (c.task == "run_ut") {
    parse_run_ut(file, sec, c);
  } else if (c.task == "grad_probe") {
    parse_grad_probe(file, sec, c);
  }
  return c;
}

DumpConfig load_dump_config(const std::string& path, Framework fw, const ConfigOverrides& ov) {
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0) {
    int e = errno;
    if (e == ENOENT || e == ENOTDIR) throw FileError(path + ": no such file (the config file must exist)");
    throw FileError(path + ": cannot access the config file: " + std::strerror(e));
  }
  if (S_ISLNK(st.st_mode)) {
    throw FileError(path + ": is a symbolic link; the config file must be a regular file, not a link");
  }
  if (S_ISDIR(st.st_mode)) throw FileError(path + ": is a directory, expected a .json config file");
  if (!S_ISREG(st.st_mode)) throw FileError(path + ": is not a regular file, expected a .json config file");
  if (!ends_with(path, ".json")) {
    throw FileError(path + ": the config file must have a .json suffix");
  }
  JsonValue doc = parse_json_file(path);
  return parse_dump_config(doc, fw, ov, path);
}

}  // namespace msprobe
