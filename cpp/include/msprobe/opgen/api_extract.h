// The entries of one API call taken out of a dump.json (msprobe 1.2.1's APIExtractor): every
// entry named `<api_name>.<something>` ("Functional.softmax.0" -> its .forward and .backward), in
// file order, read with the one dump reader. In a tensor dump each tensor's data_name becomes the
// real path of its file, confined to the dump's dump_tensor_data folder, so the extracted file and
// the script made from it work from anywhere: in input_args, output, input, grad_input,
// grad_output and (unlike 1.2.1, which forgets them) input_kwargs.
#pragma once
#include <string>

#include "msprobe/format/json_value.h"

namespace msprobe {
namespace opgen {

struct ExtractedApi {
  JsonValue entries;         // an object: entry name -> record
  bool tensor_data = false;  // the dump holds tensor files (data_name rewritten)
};

// Throws InvalidInput "The api 'X' does not exist in the file <dump>." when no entry matches,
// FileError for a missing or broken dump or a tensor file that is missing or leads outside the
// dump.
ExtractedApi extract_api(const std::string& dump_json_path, const std::string& api_name);

// json.dump(entries, f, indent=4) as 1.2.1's save_json writes the extract file.
std::string extracted_api_text(const JsonValue& entries);

}  // namespace opgen
}  // namespace msprobe
