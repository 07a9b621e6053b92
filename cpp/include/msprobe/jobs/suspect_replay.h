// "The API or its inputs?" for the first suspects of a compare (not in 1.2.1): when both dumps
// hold tensors, each API suspect (the first kMaxReplayedSuspects of them, forward or backward) is
// replayed in float64 on each run's own dumped inputs through CompareJob::replay (run_ut's replay
// machinery; a backward one from its forward arguments and the gradients its node received) and
// judged by compare/replay_verdict.h; the result goes into Suspect::replay, hence the
// divergence json and the report. A suspect that cannot be replayed gets the reason instead.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "msprobe/compare/divergence.h"
#include "msprobe/jobs/compare_job.h"

namespace msprobe {
namespace compare {

constexpr size_t kMaxReplayedSuspects = 10;

// Reads the suspects' entries from both dump.json files (one streamed pass each) and their
// dumped outputs from the tensor folders. Does nothing without job.replay or tensor dumps.
void replay_suspects(std::vector<Suspect>* suspects, const CompareJob& job);

// "Replay of X in float64: the API: <reason>." (or why it was not replayed); "" when the suspect
// was not considered.
std::string replay_line(const Suspect& s);

}  // namespace compare
}  // namespace msprobe
