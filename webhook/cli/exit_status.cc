#include "cli/exit_status.h"

namespace gpugate::cli {

bool FailsRun(policy::Mode mode) { return mode == policy::Mode::kDeny; }

int ExitStatusOf(const RunOutcome& run) {
  if (run.unread == Unread::kInput) return 2;
  if (run.wouldDeny) return 1;
  if (run.unread == Unread::kUnreachable) return 2;
  return 0;
}

}  // namespace gpugate::cli
