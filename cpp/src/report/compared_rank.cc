#include "msprobe/report/compared_rank.h"

#include <exception>

#include "msprobe/base/path.h"
#include "msprobe/reader/dump_json_reader.h"
#include "msprobe/reader/repair_note.h"
#include "msprobe/reader/side_files.h"

namespace msprobe {
namespace report {

void find_rank_divergence(ComparedRank* c, const std::string& npu_dump_json,
                          std::vector<std::string>* warnings) {
  const std::string dir = folder_of(npu_dump_json);
  auto side_file = [&](const std::string& name, auto read) {
    const std::string path = join_path(dir, name);
    if (!is_regular_file(path)) return false;
    try {
      reader::RepairNote note;
      read(path, &note);
      if (warnings && note.torn) warnings->push_back(note.message);
      return true;
    } catch (const std::exception& e) {
      if (warnings) warnings->push_back(std::string("first divergence: ") + e.what() + "; left out");
      return false;
    }
  };
  c->has_construct = side_file("construct.json", [&](const std::string& p, reader::RepairNote* n) {
    c->construct = reader::read_construct_json(p, n);
    c->parents.insert(c->construct.begin(), c->construct.end());
  });
  c->has_stacks = side_file("stack.json", [&](const std::string& p, reader::RepairNote* n) {
    c->stacks = reader::read_stack_json(p, n);
  });
  c->has_tensor_names = side_file("tensor_names.json", [&](const std::string& p, reader::RepairNote* n) {
    c->tensor_names = reader::read_tensor_names_json(p, n);
  });
  compare::DivergenceContext ctx;
  ctx.rank = c->rank;
  ctx.step = c->step;
  ctx.stacks = c->has_stacks ? &c->stacks : nullptr;
  ctx.parents = c->has_construct ? &c->parents : nullptr;
  ctx.tensor_names = c->has_tensor_names ? &c->tensor_names : nullptr;
  ctx.prior_noise = &c->prior_noise;
  c->suspects = compare::find_suspects(c->table, ctx);
  compare::mark_suspect_rows(c->table, c->suspects);
}

RankInput rank_input(const ComparedRank& c) {
  RankInput r;
  r.rank = c.rank;
  r.step = c.step;
  r.table = &c.table;
  r.suspects = &c.suspects;
  r.construct = c.has_construct ? &c.construct : nullptr;
  r.stacks = c.has_stacks ? &c.stacks : nullptr;
  return r;
}

RunInfo run_info(const std::string& label, const std::string& path, const std::string& dump_json) {
  reader::DumpJsonReader r(dump_json);
  return {label, path, r.header().framework, r.header().level, r.header().task};
}

}  // namespace report
}  // namespace msprobe
