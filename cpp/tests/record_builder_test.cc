// The dump record in the core: entry assembly, parameters_grad aggregation and placement, entries
// waiting for deferred values, and overflow_check's choice, through a plain C++ adapter.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "msprobe/dump/deferred_text.h"
#include "msprobe/dump/entry_parts.h"
#include "msprobe/dump/param_grads.h"
#include "msprobe/dump/record_builder.h"
#include "msprobe/dump/value_record.h"
#include "msprobe/format/json_value.h"

namespace fs = std::filesystem;

namespace msprobe {
namespace {

// A value: its JSON text, or read later (deferred), or a tensor holding inf/NaN (overflow).
struct Item {
  std::string json;
  bool deferred = false;
  bool overflow = false;
};
using Items = std::vector<Item>;
using Params = std::vector<std::pair<std::string, Item>>;

class FakeAdapter : public RecordAdapter {
 public:
  void write_list(JsonWriter& w, ValueRef v, const std::string&, const char*) override {
    w.begin_array();
    if (v)
      for (const Item& i : *static_cast<const Items*>(v)) item(w, i);
    w.end_array();
  }
  void write_kwargs(JsonWriter& w, ValueRef, const std::string&) override {
    w.begin_object();
    w.end_object();
  }
  void write_result(JsonWriter& w, ValueRef v, const std::string& e, const char* c) override {
    write_list(w, v, e, c);
  }
  void write_parameters(JsonWriter& w, ValueRef v, const std::string&) override {
    w.begin_object();
    for (const auto& [name, i] : *static_cast<const Params*>(v)) {
      w.key(name);
      item(w, i);
    }
    w.end_object();
  }
  bool has_parameters(ValueRef v) override { return v && !static_cast<const Params*>(v)->empty(); }
  void write_tensor(JsonWriter& w, ValueRef v, const std::string& stem) override {
    stems.push_back(stem);
    item(w, *static_cast<const Item*>(v));
  }
  void set_target(SinkPtr sink, bool output_side) override {
    sink_ = std::move(sink);
    output_side_ = output_side;
  }
  void save_held(OverflowSink& sink) override { saved_held += sink.held.size(); }
  size_t deferred_count() const override { return deferred.size(); }
  double deferred_age_s() const override { return 0.0; }
  std::vector<std::pair<uint64_t, std::string>> render_deferred(bool force) override {
    std::vector<std::pair<uint64_t, std::string>> out;
    if (!force && !ready) return out;
    for (auto& [id, text] : deferred) out.emplace_back(id, text);
    deferred.clear();
    return out;
  }
  void end_step() override { ++steps_ended; }
  std::vector<uint32_t> capture_stack() override { return {}; }
  void report(const char* level, const std::string& message) override {
    reports.push_back(std::string(level) + ": " + message);
  }

  std::vector<std::pair<uint64_t, std::string>> deferred;
  bool ready = false;  // render_deferred(false) finds the values ready
  std::vector<std::string> stems, reports;
  size_t saved_held = 0;
  int steps_ended = 0;

 private:
  void item(JsonWriter& w, const Item& i) {
    if (sink_) {
      if (i.overflow) (output_side_ ? sink_->outputs : sink_->inputs) = true;
      sink_->held.push_back(std::make_unique<HeldTensor>("held", false));
    }
    if (i.deferred) {
      deferred.emplace_back(next_id_, i.json);
      w.raw(deferred_marker(next_id_++));
    } else {
      w.raw(i.json);
    }
  }
  SinkPtr sink_;
  bool output_side_ = false;
  uint64_t next_id_ = 1;
};

struct Fixture {
  explicit Fixture(const char* name, const std::string& task = "statistics", const std::string& level = "mix")
      : dir(fs::temp_directory_path() /
            (std::string("msprobe_record_") + name + "_" + std::to_string(::getpid()))),
        session(config(dir, task, level), SessionOptions{}),
        builder(session, adapter) {
    EXPECT_TRUE(session.start(-1));
  }
  ~Fixture() { fs::remove_all(dir); }
  static DumpConfig config(const fs::path& d, const std::string& task, const std::string& level) {
    fs::remove_all(d);
    DumpConfig cfg;
    cfg.dump_path = d.string();
    cfg.task = task;
    cfg.level = level;
    cfg.overflow_nums = 10;
    return cfg;
  }
  std::string dump_text() const {
    std::ifstream in(dir / "step0" / "rank" / "dump.json");
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  JsonValue data() const {
    const JsonValue doc = parse_json(dump_text(), "dump.json");
    const JsonValue* d = doc.find("data");
    return d ? *d : JsonValue();
  }
  std::vector<std::string> keys() const {
    std::vector<std::string> k;
    const JsonValue d = data();
    if (d.is_null()) return k;
    for (const auto& [name, v] : d.as_object()) k.push_back(name);
    return k;
  }

  fs::path dir;
  FakeAdapter adapter;
  DumpSession session;
  RecordBuilder builder;
};

const Item kOne{"1"};

TEST(RecordBuilder, ApiEntryHoldsInputsKwargsOutputInThatOrder) {
  Fixture f("api");
  Items in{kOne, Item{"2"}}, out{Item{"3"}};
  const int64_t idx = f.builder.api_pre("Torch.add", &in, nullptr);
  EXPECT_EQ(idx, 0);
  EXPECT_TRUE(f.builder.api_post("Torch.add", idx, &out));
  f.builder.stop();
  const std::string text = f.dump_text();
  EXPECT_NE(text.find("  \"Torch.add.0.forward\": {\n   \"input_args\": [\n    1,\n    2\n   ],\n"
                      "   \"input_kwargs\": {},\n   \"output\": [\n    3\n   ]\n  }"),
            std::string::npos)
      << text;
}

TEST(RecordBuilder, EntryPartsLayout) {
  EntryParts e;
  EXPECT_EQ(e.finish(), "{}");
  e.part("input", [](JsonWriter& w) {
    w.begin_array();
    w.integer(1);
    w.end_array();
  });
  e.part("output", [](JsonWriter& w) { w.null(); });
  EXPECT_EQ(e.finish(), "{\n   \"input\": [\n    1\n   ],\n   \"output\": null\n  }");
  // overflow_check: finite but a value still unread: not decided yet.
  e.sink = std::make_shared<OverflowSink>();
  EXPECT_TRUE(e.finite_and_complete());
  e.part("more", [](JsonWriter& w) { w.raw(deferred_marker(7)); });
  EXPECT_FALSE(e.finite_and_complete());
}

TEST(ValueRecord, TypeThenValue) {
  std::string out;
  JsonWriter w(out, 3);
  w.begin_array();
  write_bool_record(w, true);
  write_float_record(w, 0.5);
  write_str_record(w, "mean");
  write_ellipsis_record(w);
  begin_value_record(w, "slice");
  w.begin_array();
  w.null();
  w.end_array();
  end_value_record(w);
  w.end_array();
  EXPECT_EQ(out,
            "[\n    {\n     \"type\": \"bool\",\n     \"value\": true\n    },"
            "\n    {\n     \"type\": \"float\",\n     \"value\": 0.5\n    },"
            "\n    {\n     \"type\": \"str\",\n     \"value\": \"mean\"\n    },"
            "\n    {\n     \"type\": \"ellipsis\",\n     \"value\": \"...\"\n    },"
            "\n    {\n     \"type\": \"slice\",\n     \"value\": [\n      null\n     ]\n    }\n   ]");
}

TEST(RecordBuilder, ParameterGradientsGoRightAfterTheModulesFirstForward) {
  Fixture f("params");
  Items in{kOne}, out{Item{"2"}};
  Params params{{"weight", kOne}, {"bias", kOne}};
  const std::string node = f.builder.module_pre("Module.fc.Linear.", "forward");
  EXPECT_EQ(node, "Module.fc.Linear.forward.0");
  EXPECT_TRUE(f.builder.module_post_forward(node, &in, nullptr, &out, &params));
  EXPECT_TRUE(f.builder.api_post("Torch.relu", f.builder.api_pre("Torch.relu", &in, nullptr), &out));
  // Gradients arrive in autograd's order; the entry lists them in the module's order.
  Item gb{"\"gb\""}, gw{"\"gw\""};
  const std::vector<std::string> names{"weight", "bias"};
  f.builder.param_grad("Module.fc.Linear.", "bias", &gb, names);
  f.session.flush();
  EXPECT_EQ(f.keys().size(), 2u);  // waits for the weight
  f.builder.param_grad("Module.fc.Linear.", "weight", &gw, names);
  f.builder.stop();
  EXPECT_EQ(f.keys(), (std::vector<std::string>{"Module.fc.Linear.forward.0",
                                                "Module.fc.Linear.parameters_grad", "Torch.relu.0.forward"}));
  const JsonValue data = f.data();
  const JsonValue pg = *data.find("Module.fc.Linear.parameters_grad");
  ASSERT_EQ(pg.as_object().size(), 2u);
  EXPECT_EQ(pg.as_object()[0].first, "weight");
  EXPECT_EQ(pg.as_object()[0].second.as_array()[0].as_string(), "gw");
  EXPECT_EQ(pg.as_object()[1].second.as_array()[0].as_string(), "gb");
  EXPECT_EQ(f.adapter.stems, (std::vector<std::string>{"Module.fc.Linear.parameters_grad.bias",
                                                       "Module.fc.Linear.parameters_grad.weight"}));
}

TEST(RecordBuilder, MissingParameterGradientIsNullAtStop) {
  Fixture f("params_missing");
  Item g{"5"};
  f.builder.param_grad("Module.m.M.", "a", &g, {"a", "b"});
  f.builder.stop();
  const std::string text = f.dump_text();
  EXPECT_NE(text.find("\"Module.m.M.parameters_grad\": {\n   \"a\": [\n    5\n   ],\n"
                      "   \"b\": [\n    null\n   ]\n  }"),
            std::string::npos)
      << text;
}

TEST(ParamGrads, OverflowingListsOnlyWhatOverflowedUnlessTheForwardDid) {
  PendingParamGrads p;
  p.names = {"w", "b"};
  p.arrival = {"b", "w"};
  p.rendered = {{"w", "[W]"}, {"b", "[B]"}};
  p.sinks["w"] = std::make_shared<OverflowSink>();
  p.sinks["b"] = std::make_shared<OverflowSink>();
  std::vector<std::string> over;
  EXPECT_EQ(overflowing_param_grads_text(p, false, over), "");
  p.sinks["w"]->outputs = true;
  EXPECT_EQ(overflowing_param_grads_text(p, false, over), "{\n   \"w\": [W]\n  }");
  EXPECT_EQ(over, std::vector<std::string>{"w"});
  over.clear();
  p.sinks["b"]->outputs = true;
  EXPECT_EQ(overflowing_param_grads_text(p, false, over), "{\n   \"b\": [B],\n   \"w\": [W]\n  }");
  p.sinks["b"]->outputs = false;
  over.clear();
  EXPECT_EQ(overflowing_param_grads_text(p, true, over),
            "{\n   \"w\": [W],\n   \"b\": [\n    null\n   ]\n  }");
  EXPECT_EQ(param_grads_prefix("Cell.a.Dense.forward.3"), "Cell.a.Dense.");
}

TEST(RecordBuilder, EntriesWaitInOrderForDeferredValues) {
  Fixture f("deferred");
  f.builder.set_deferral(100, 1e9);
  Items late{Item{"7", true}}, out{kOne};
  f.builder.api_post("Torch.a", f.builder.api_pre("Torch.a", &late, nullptr), &out);
  f.builder.api_post("Torch.b", f.builder.api_pre("Torch.b", &out, nullptr), &out);
  f.session.flush();
  EXPECT_TRUE(f.keys().empty());  // b waits behind a
  f.builder.resolve(false);       // not ready yet
  EXPECT_TRUE(f.keys().empty());
  f.adapter.ready = true;
  f.builder.resolve(false);
  f.session.flush();
  EXPECT_EQ(f.keys(), (std::vector<std::string>{"Torch.a.0.forward", "Torch.b.0.forward"}));
  const JsonValue data = f.data();
  EXPECT_EQ(data.find("Torch.a.0.forward")->find("input_args")->as_array()[0].as_int(), 7);
}

TEST(RecordBuilder, MaxPendingResolvesOnTheNextEvent) {
  Fixture f("deferred_max");
  f.builder.set_deferral(1, 1e9);
  f.adapter.ready = true;
  Items late{Item{"7", true}}, out{kOne};
  f.builder.api_post("Torch.a", f.builder.api_pre("Torch.a", &late, nullptr), &out);
  f.session.flush();
  EXPECT_EQ(f.keys().size(), 1u);
  EXPECT_EQ(f.adapter.deferred_count(), 0u);
}

TEST(DeferredText, SubstituteKeepsUnknownMarkersAndNullsThemAtTheEnd) {
  std::string text = "[" + deferred_marker(1) + ", " + deferred_marker(2) + "]";
  std::unordered_map<uint64_t, std::string> rendered{{2, "{\"x\": 2}"}};
  EXPECT_FALSE(substitute_deferred(text, rendered));
  EXPECT_TRUE(rendered.empty());
  EXPECT_EQ(text, "[" + deferred_marker(1) + ", {\"x\": 2}]");
  EXPECT_EQ(null_deferred(text), "[null, {\"x\": 2}]");
  rendered[1] = "1.5";
  EXPECT_TRUE(substitute_deferred(text, rendered));
  EXPECT_EQ(text, "[1.5, {\"x\": 2}]");
  EXPECT_FALSE(holds_deferred(text));
}

TEST(RecordBuilder, StepWritesUnreadValuesAsNull) {
  Fixture f("deferred_step");
  Items late{Item{"7", true}}, out{kOne};
  f.builder.api_post("Torch.a", f.builder.api_pre("Torch.a", &late, nullptr), &out);
  f.adapter.deferred.clear();  // the value is never read
  f.builder.step();
  EXPECT_EQ(f.adapter.steps_ended, 1);
  const JsonValue data = f.data();
  EXPECT_TRUE(data.find("Torch.a.0.forward")->find("input_args")->as_array()[0].is_null());
}

TEST(RecordBuilder, OverflowCheckWritesOnlyOverflowingEntries) {
  Fixture f("overflow", "overflow_check");
  Items finite{kOne}, bad{Item{"2", false, true}};
  f.builder.api_post("Torch.a", f.builder.api_pre("Torch.a", &finite, nullptr), &finite);
  f.builder.api_post("Torch.b", f.builder.api_pre("Torch.b", &finite, nullptr), &bad);
  f.builder.api_backward("Torch.b", 0, &bad, &finite);
  f.session.flush();
  EXPECT_EQ(f.keys(), (std::vector<std::string>{"Torch.b.0.forward", "Torch.b.0.backward"}));
  EXPECT_EQ(f.adapter.saved_held, 4u);  // the tensors of both entries, saved as they overflowed
  ASSERT_FALSE(f.adapter.reports.empty());
  EXPECT_EQ(f.adapter.reports[0].rfind("WARNING: ", 0), 0u);
}

}  // namespace
}  // namespace msprobe
