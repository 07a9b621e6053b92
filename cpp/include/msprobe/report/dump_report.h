// The statistics view of one dump (`msprobe report DUMP -o OUT`): the same page as a compare
// report, with one run: the tree coloured by where inf/nan appear, the largest output magnitude
// along execution order, and each node's inputs and outputs.
#pragma once
#include <string>

namespace msprobe {
namespace report {

// dump_path: a dump.json file, a folder holding one, a folder of rank*/ folders or a dump_path
// of step*/rank*/ folders (every step and rank becomes one selectable part). construct.json and
// stack.json beside each dump.json are used when present. Throws FileError (one line naming the
// file) when nothing can be read.
std::string render_dump_report(const std::string& dump_path, const std::string& title = "");

}  // namespace report
}  // namespace msprobe
