// The rule verdict on one object, in the words the webhook answers with. One function, so the
// webhook (Handler::Check) and `gpugate check` (cli/check_command.cc) can never word a denial
// differently.
#pragma once

#include <optional>

#include "policy/pod_view.h"
#include "policy/settings.h"
#include "review/decision.h"

namespace gpugate::admission {

// Runs every rule over every pod spec of `object` (policy::Validate). nullopt when nothing is
// violated; otherwise the denial: reason is the first violation's rule, message every violation's
// message in reporting order, joined by "; ".
std::optional<review::Decision> CheckRules(const policy::ObjectView& object,
                                           const policy::Settings& settings);

}  // namespace gpugate::admission
