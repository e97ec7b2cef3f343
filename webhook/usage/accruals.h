// From a pod's quota charge to the usage it accrues: the bridge a ledger calls, so it needs to
// know nothing of usage keys.
#pragma once

#include <string_view>
#include <vector>

#include "quota/amounts.h"
#include "usage/usage_book.h"

namespace gpugate::usage {

// The accruals of a pod in namespace `ns` charged `charge` (quota::PodCharge: resources,
// weighted figures, and "resource@flavor" entries for a pinned pod) that held it over `held`:
// one per plain entry, with the pod's GPU model when it was pinned to exactly one flavor and ""
// otherwise (unpinned, or pinned to several: which one it ran on is not known here). The
// "resource@flavor" entries add nothing of their own: they repeat the plain ones.
//
// For a finished pod, `held` is [started, stopped) and the result goes to UsageBook::Accrue;
// for a running pod, [started, now) and the result goes to Spent (spent.h).
std::vector<Accrual> Accruals(std::string_view ns, const quota::Amounts& charge, Span held);

}  // namespace gpugate::usage
