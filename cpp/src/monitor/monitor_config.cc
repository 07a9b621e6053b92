#include "msprobe/monitor/monitor_config.h"

#include <set>

#include "msprobe/base/error.h"

namespace msprobe {
namespace monitor {
namespace {

struct Reader {
  const std::string& origin;
  [[noreturn]] void fail(const std::string& field, const std::string& what) const {
    throw InvalidInput("monitor config " + origin + ": \"" + field + "\" " + what);
  }
  bool boolean(const JsonValue& v, const std::string& field) const {
    if (!v.is_bool()) fail(field, std::string("must be true or false, got ") + v.type_name());
    return v.as_bool();
  }
  int64_t integer(const JsonValue& v, const std::string& field, int64_t lo) const {
    if (!v.is_int()) fail(field, std::string("must be an integer, got ") + v.type_name());
    if (v.as_int() < lo)
      fail(field, "must be at least " + std::to_string(lo) + ", got " + std::to_string(v.as_int()));
    return v.as_int();
  }
  const JsonValue::Array& list(const JsonValue& v, const std::string& field) const {
    if (!v.is_array()) fail(field, std::string("must be a list, got ") + v.type_name());
    return v.as_array();
  }
  const JsonValue::Object& object(const JsonValue& v, const std::string& field) const {
    if (!v.is_object()) fail(field, std::string("must be an object, got ") + v.type_name());
    return v.as_object();
  }
  std::string string(const JsonValue& v, const std::string& field) const {
    if (!v.is_string()) fail(field, std::string("must be a string, got ") + v.type_name());
    return v.as_string();
  }
};

void read_targets(const Reader& r, const JsonValue& v, MonitorConfig& c) {
  for (const auto& [module, spec] : r.object(v, "targets")) {
    MonitorTarget t;
    t.module = module;
    for (const auto& [key, value] : r.object(spec, "targets." + module)) {
      static const std::set<std::string> keys = {"input", "output", "input_grad", "output_grad"};
      if (!keys.count(key))
        r.fail("targets." + module + "." + key, "is not one of input, output, input_grad, output_grad");
      t.specs.emplace_back(key, r.string(value, "targets." + module + "." + key));
    }
    c.targets.push_back(std::move(t));
  }
}

void read_alert(const Reader& r, const JsonValue& v, MonitorConfig& c) {
  for (const auto& [key, value] : r.object(v, "alert")) {
    if (key == "dump") {
      c.alert_dump = r.boolean(value, "alert.dump");
    } else if (key == "rules") {
      for (const JsonValue& rule : r.list(value, "alert.rules")) {
        AlertRule a;
        r.object(rule, "alert.rules[]");
        const JsonValue* name = rule.find("rule_name");
        const JsonValue* args = rule.find("args");
        if (!name || !args) r.fail("alert.rules[]", "needs \"rule_name\" and \"args\"");
        a.rule_name = r.string(*name, "alert.rules[].rule_name");
        if (a.rule_name != "AnomalyTurbulence")
          r.fail("alert.rules[].rule_name",
                 "\"" + a.rule_name + "\" is not supported; the rule is AnomalyTurbulence");
        r.object(*args, "alert.rules[].args");
        const JsonValue* threshold = args->find("threshold");
        // 1.2.1 wants a float (0.5, not an int) that is not negative.
        if (!threshold || !threshold->is_number() || threshold->as_double() < 0)
          r.fail("alert.rules[].args.threshold", "must be a number not less than 0");
        a.threshold = threshold->as_double();
        c.alert_rules.push_back(a);
      }
    } else {
      r.fail("alert." + key, "is not a field of alert (rules, dump)");
    }
  }
}

}  // namespace

MonitorConfig parse_monitor_config(const JsonValue& doc, const std::string& origin) {
  Reader r{origin};
  MonitorConfig c;
  if (!doc.is_object()) throw InvalidInput("monitor config " + origin + ": must be a JSON object");
  bool ops_given = false;
  for (const auto& [key, v] : doc.as_object()) {
    if (key == "targets")
      read_targets(r, v, c);
    else if (key == "print_struct")
      c.print_struct = r.boolean(v, key);
    else if (key == "module_ranks") {
      for (const JsonValue& x : r.list(v, key)) c.module_ranks.push_back(r.integer(x, "module_ranks[]", 0));
    } else if (key == "xy_distribution")
      c.xy_distribution = r.boolean(v, key);
    else if (key == "all_xy")
      c.all_xy = r.boolean(v, key);
    else if (key == "forward_only")
      c.forward_only = r.boolean(v, key);
    else if (key == "backward_only")
      c.backward_only = r.boolean(v, key);
    else if (key == "wg_distribution")
      c.wg_distribution = r.boolean(v, key);
    else if (key == "mv_distribution")
      c.mv_distribution = r.boolean(v, key);
    else if (key == "param_distribution")
      c.param_distribution = r.boolean(v, key);
    else if (key == "ur_distribution")
      c.ur_distribution = r.boolean(v, key);
    else if (key == "mg_direction")
      c.mg_direction = r.boolean(v, key);
    else if (key == "mg_distribution")
      r.boolean(v, key);  // read by 1.2.1, used by nothing
    else if (key == "squash_name")
      c.squash_name = r.boolean(v, key);
    else if (key == "switch")
      c.switch_on = r.boolean(v, key);
    else if (key == "cc_distribution") {
      for (const auto& [ck, cv] : r.object(v, key)) {
        if (ck == "enable")
          c.cc_enable = r.boolean(cv, "cc_distribution.enable");
        else if (ck == "cc_codeline")
          for (const JsonValue& line : r.list(cv, "cc_distribution.cc_codeline"))
            c.cc_codeline.push_back(r.string(line, "cc_distribution.cc_codeline[]"));
        else if (ck == "cc_pre_hook")
          c.cc_pre_hook = r.boolean(cv, "cc_distribution.cc_pre_hook");
        else if (ck == "cc_log_only")
          c.cc_log_only = r.boolean(cv, "cc_distribution.cc_log_only");
        else
          r.fail("cc_distribution." + ck, "is not supported (enable, cc_codeline, cc_pre_hook, cc_log_only)");
      }
    } else if (key == "ops") {
      ops_given = true;
      c.ops.clear();
      for (const JsonValue& op : r.list(v, key)) {
        const std::string name = op.is_string() ? op.as_string() : std::string(op.type_name());
        bool known = false;
        for (const auto& n : monitor_op_names()) known = known || n == name;
        if (known)
          c.ops.push_back(name);
        else
          c.warnings.push_back(
              "op " + name +
              " is not supported and is left out; the ops are norm, min, max, zeros, nans, id, mean");
      }
    } else if (key == "eps") {
      // 1.2.1 wants a float (1e-8, not 0).
      if (!v.is_number()) r.fail(key, std::string("must be a number, got ") + v.type_name());
      c.eps = v.as_double();
    } else if (key == "ndigits")
      c.ndigits = r.integer(v, key, 0);
    else if (key == "alert")
      read_alert(r, v, c);
    else if (key == "format") {
      c.format = r.string(v, key);
      if (c.format != "csv" && c.format != "tensorboard" && c.format != "api")
        r.fail(key, "\"" + c.format + "\" is not one of csv, tensorboard, api");
    } else if (key == "step_interval")
      c.step_interval = r.integer(v, key, 1);
    else if (key == "start_step")
      c.start_step = r.integer(v, key, 0);
    else if (key == "collect_times")
      c.collect_times = r.integer(v, key, 0);
    else if (key == "step_count_per_record") {
      c.step_count_per_record = r.integer(v, key, 1);
      if (c.step_count_per_record > 1000000) r.fail(key, "must be at most 1000000");
    } else if (key == "append_output") {
      for (const JsonValue& x : r.list(v, key)) c.append_output.push_back(r.string(x, "append_output[]"));
      if (c.append_output.size() != 2) r.fail(key, "must be [time_start, time_end]");
    } else {
      r.fail(key, "is not a monitor config field");
    }
  }
  if (ops_given && c.ops.empty()) {
    c.ops = {"norm"};
    c.warnings.push_back("there is no valid op, the default op norm is used");
  }
  if (c.targets.empty()) {
    // 1.2.1: no targets means every parameter, and every module when xy_distribution is on.
    if (c.xy_distribution) c.all_xy = true;
    c.targets.push_back(MonitorTarget{});
  }
  return c;
}

MonitorConfig load_monitor_config(const std::string& path) {
  return parse_monitor_config(parse_json_file(path), path);
}

}  // namespace monitor
}  // namespace msprobe
