// The bench tensor file of a result row, found as 1.2.1's get_bench_data_name does
// (core/compare/acc_compare.py): the Bench Name is split at its first
// ".input." / ".output." / ".kwargs." / ".parameters." / ".parameters_grad.", the entry is looked
// up in the bench dump.json and walked down the remaining dotted path to its "data_name".
#pragma once
#include <string>
#include <vector>

namespace msprobe {
namespace compare {

// Resolves the bench file name of every bench row name in one streamed pass over the bench
// dump.json. Result[i] is "" where 1.2.1 finds none (its None).
std::vector<std::string> resolve_bench_data_names(const std::string& bench_dump_json,
                                                  const std::vector<std::string>& bench_names);

}  // namespace compare
}  // namespace msprobe
