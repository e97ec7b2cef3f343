// The exit status of `gpugate check` and `gpugate audit`: one rule for both, the one their help
// texts and docs/rules.md ("Exit status of check and audit") state.
//   1. 2 when input the user gave cannot be read (a manifest file), whatever was found in the
//      rest: fixed and run again on the spot, the run judges what was asked. (Usage errors and a
//      config file gpugate refuses are 2 too, before anything is judged.)
//   2. 1 when something would be denied: a finding in deny mode (FailsRun), or a namespace over
//      its limits.
//   3. 2 when part of what was asked could not be reached (a collection the cluster would not
//      list): what was read may show a denial (2 above), never that there is none; running again
//      does not help an operator without `list` on one kind.
//   4. 0: nothing would be denied.
#pragma once

#include "policy/modes.h"

namespace gpugate::cli {

// Whether a finding in `mode` fails the run: only deny, so a pipeline can run the cluster's own
// config during a rollout and fail only on what the cluster would refuse.
bool FailsRun(policy::Mode mode);

// What a run could not read.
enum class Unread {
  kNothing,
  kInput,        // input the user gave: a manifest file missing, unreadable or not YAML (rule 1)
  kUnreachable,  // part of the cluster: a collection that could not be listed (rule 3)
};

struct RunOutcome {
  bool wouldDeny = false;  // rule 2
  Unread unread = Unread::kNothing;
};

// 0, 1 or 2, by the rules above in their order.
int ExitStatusOf(const RunOutcome& run);

}  // namespace gpugate::cli
