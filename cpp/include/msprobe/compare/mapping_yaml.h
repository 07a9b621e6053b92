// data_mapping_{ts}.yaml, which msprobe 1.2.1's compare -lm leaves in the output folder: the row
// pairs the layer mapping produced, written as PyYAML's yaml.dump(dict, sort_keys=False) writes
// them (plain scalars where PyYAML keeps them plain, single quotes where it quotes, double quotes
// with escapes for non-ASCII or control characters, "? key" form for keys of 123+ characters).
// Later pairs with a key seen before replace its value in place, as a Python dict does.
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace msprobe {
namespace compare {

std::string mapping_yaml_text(const std::vector<std::pair<std::string, std::string>>& pairs);
std::string data_mapping_file_name(const std::string& suffix, const std::string& timestamp);
// Mode 0640; a symbolic link there is refused. Throws FileError.
void write_mapping_yaml(const std::vector<std::pair<std::string, std::string>>& pairs,
                        const std::string& path);

}  // namespace compare
}  // namespace msprobe
