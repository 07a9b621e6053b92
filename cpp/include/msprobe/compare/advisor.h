// The advisor of msprobe 1.2.1 (core/advisor/): after a compare it names the first row whose
// accuracy is not reached and gives a canned suggestion, in advisor{suffix}_{ts}.txt:
//   Line: <0-based row index>
//   Suspect Nodes: <NPU Name>
//   Expert Advice: <suggestion, may span lines>
// Failing rows: tensor mode "Accuracy Reached or Not" == "No"; md5 mode "Result" == "Different";
// statistics mode "Result" == "Warning". None: "Line: NA", "Suspect Nodes: NA" and the
// all-reached sentence. It is skipped with -c / auto_analyze=False (the caller's choice).
#pragma once
#include <string>
#include <vector>

#include "msprobe/compare/compare_table.h"

namespace msprobe {
namespace compare {

struct AdvisorResult {
  bool found = false;       // a failing row exists
  std::string line = "NA";  // its row index (0-based, as 1.2.1 prints it) or "NA"
  std::string suspect_node = "NA";
  std::string message;  // the suggestion
  // 1.2.1's warnings before the analysis: one line per row whose name matched but whose shape or
  // dtype did not ("The tensor name matches but the shape or dtype does not match: <name>").
  std::vector<std::string> warnings;
  // The op where the two runs first diverge, from the first-divergence analysis
  // (divergence_*.json), when one was run; empty otherwise. When set, the advisor adds one line
  // "First Divergence: <name>" after 1.2.1's three lines (1.2.1 has no such analysis).
  std::string first_divergence;
};

// Analyses a compare table. Throws InvalidInput when its header is not one of compare's
// (1.2.1: "Compare result does not meet the required conditions."). With the suspects marked
// (table.divergence), the first marked row of the first suspect `first_suspect` (a dump entry
// or a source row; "" none) is the suspect node, so that the advisor names what first
// divergence names; otherwise 1.2.1's first failing row.
AdvisorResult analyze_compare_table(const CompareTable& table, const std::string& first_suspect = "");

// The suggestion 1.2.1 gives for a suspect row name.
std::string advisor_message(const std::string& node_name);

// The lines of the advisor file (each written followed by "\n").
std::vector<std::string> advisor_lines(const AdvisorResult& result);

// Writes the lines to `path` (mode 0640; a symbolic link there is refused). Throws FileError.
void write_advisor_file(const AdvisorResult& result, const std::string& path);

}  // namespace compare
}  // namespace msprobe
