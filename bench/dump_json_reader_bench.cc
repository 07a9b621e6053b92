// dump.json parse speed: the streamed DumpJsonReader against parsing the whole document.
//
// Writes a statistics dump.json of N entries (default 200000, about 330 MB) in json.dump(indent=1)
// layout, each entry an L1 API record with two input tensors and one output (dtype, shape, Max,
// Min, Mean, Norm, requires_grad), then reads it from the page cache: median of `runs` passes.
// Usage: dump_json_reader_bench [entries] [runs] [dir] [streamed-only: 1]
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "msprobe/format/json_value.h"
#include "msprobe/format/json_writer.h"
#include "msprobe/reader/dump_json_reader.h"

using namespace msprobe;

namespace {

void tensor(JsonWriter& j, std::mt19937_64& rng, bool grad) {
  std::uniform_real_distribution<double> u(-3, 3);
  j.begin_object();
  j.key("type");
  j.string("torch.Tensor");
  j.key("dtype");
  j.string("torch.float32");
  j.key("shape");
  j.begin_array();
  j.integer(32);
  j.integer(4096);
  j.end_array();
  for (const char* k : {"Max", "Min", "Mean", "Norm"}) {
    j.key(k);
    j.floating((double)(float)u(rng));
  }
  j.key("requires_grad");
  j.boolean(grad);
  j.end_object();
}

template <typename Fn>
double median_seconds(int runs, Fn&& fn) {
  std::vector<double> t;
  for (int i = 0; i < runs; ++i) {
    auto a = std::chrono::steady_clock::now();
    fn();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const long entries = argc > 1 ? std::atol(argv[1]) : 200000;
  const int runs = argc > 2 ? std::atoi(argv[2]) : 3;
  const std::string dir = argc > 3 ? argv[3] : "/tmp";
  const bool streamed_only = argc > 4 && std::atoi(argv[4]) != 0;
  const std::string path = dir + "/dump_json_reader_bench.json";
  if (!streamed_only || ::access(path.c_str(), R_OK) != 0) {
    std::ofstream out(path, std::ios::binary);
    out << "{\n \"task\": \"statistics\",\n \"level\": \"L1\",\n \"framework\": \"pytorch\",\n"
           " \"dump_data_dir\": null,\n \"data\": {";
    std::mt19937_64 rng(1);
    const char* apis[] = {"Functional.linear", "Torch.matmul", "Tensor.__add__", "Functional.gelu"};
    std::string chunk;
    for (long i = 0; i < entries; ++i) {
      chunk += i ? ",\n  " : "\n  ";
      append_json_string(chunk, std::string(apis[i % 4]) + "." + std::to_string(i / 4) + ".forward");
      chunk += ": ";
      JsonWriter j(chunk, 2);
      j.begin_object();
      j.key("input_args");
      j.begin_array();
      tensor(j, rng, false);
      tensor(j, rng, true);
      j.end_array();
      j.key("input_kwargs");
      j.begin_object();
      j.end_object();
      j.key("output");
      j.begin_array();
      tensor(j, rng, true);
      j.end_array();
      j.end_object();
      if (chunk.size() > (1 << 20)) {
        out << chunk;
        chunk.clear();
      }
    }
    out << chunk << "\n }\n}";
  }
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  const double mb = (double)in.tellg() / 1e6;

  size_t seen = 0;
  const double streamed = median_seconds(runs, [&] {
    reader::DumpJsonReader r(path);
    seen = 0;
    r.for_each_entry([&](std::string_view, const JsonValue&) { ++seen; });
  });
  std::printf("dump.json: %ld entries, %.1f MB (page cache), median of %d\n", entries, mb, runs);
  std::printf("  DumpJsonReader::for_each_entry  %7.3f s  %7.1f MB/s  (%zu entries)\n", streamed,
              mb / streamed, seen);
  if (streamed_only) return 0;  // the file stays for the next profile
  const double whole = median_seconds(runs, [&] { (void)parse_json_file(path); });
  std::printf("  parse_json_file (whole tree)    %7.3f s  %7.1f MB/s\n", whole, mb / whole);
  ::unlink(path.c_str());
  return seen == (size_t)entries ? 0 : 1;
}
