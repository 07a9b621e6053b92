// Temporary stubs so that dependants build; replaced by the real reader.
#include "msprobe/base/error.h"
#include "msprobe/reader/dump_json_reader.h"
#include "msprobe/reader/side_files.h"
#include "msprobe/reader/tensor_store.h"

namespace msprobe {
namespace reader {

struct DumpJsonReader::Mapping {};
bool DumpHeader::has_real_data() const { return false; }
DumpJsonReader::DumpJsonReader(const std::string& path) : path_(path) {
  throw FileError(path + ": reader not implemented yet");
}
DumpJsonReader::~DumpJsonReader() = default;
void DumpJsonReader::for_each_entry(
    const std::function<void(std::string_view, const JsonValue&)>&) {}
std::unordered_map<std::string, std::vector<std::string>> read_stack_json(const std::string& path,
                                                                          RepairNote*) {
  throw FileError(path + ": reader not implemented yet");
}
std::vector<std::pair<std::string, std::string>> read_construct_json(const std::string& path,
                                                                     RepairNote*) {
  throw FileError(path + ": reader not implemented yet");
}
TensorView LoadedTensor::view() const { return TensorView(); }
TensorStore::TensorStore(std::string dir) : dir_(std::move(dir)) {}
LoadedTensor TensorStore::load(const std::string& n) const {
  throw FileError(n + ": reader not implemented yet");
}
std::string TensorStore::resolve(const std::string& n) const {
  throw FileError(n + ": reader not implemented yet");
}

}  // namespace reader
}  // namespace msprobe
