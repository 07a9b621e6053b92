// compare_report_{timestamp}.html: one self-contained page (data, charting library, script and
// style inlined; no network) showing a compare: summary and suspects, the error along execution
// order, the model tree coloured by verdict, node details of both runs, and for several ranks
// a rank selector and a ranks x ops heat map. See docs/report.md.
#pragma once
#include <string>

#include "msprobe/report/report_input.h"

namespace msprobe {
namespace report {

// The whole page. Throws InvalidInput when `in` has no rank or a rank without a table.
std::string render_compare_report(const ReportInput& in);

// Writes a rendered page (mode 0640, replacing an existing file). Throws FileError naming the
// path when it cannot be written.
void write_report_file(const std::string& path, const std::string& html);

}  // namespace report
}  // namespace msprobe
