// GPUBudget objects (gpugate.io/v1alpha1, cluster-scoped): GPU-hour budgets a cluster admin sets
// in the cluster, and that any namespace user can read (docs/quota.md, "Budgets in the cluster"):
//
//   apiVersion: gpugate.io/v1alpha1
//   kind: GPUBudget
//   metadata: {name: team-a}
//   spec:
//     namespaces: [team-a, "team-a-*"]   # names, '*' matching any run of characters
//     period: month                      # month, week or rolling:<Go duration> (24h or more)
//     gpuHours: {nvidia.com/gpu@a100: "500", gpu-equivalents: "800"}
//     warnAt: 80                         # percent; 0: no early warning
//
// Which budget applies to a namespace (BudgetLookup::For follows this list):
//   1. the GPUBudget objects whose spec.namespaces match it: the one with the most specific
//      matching pattern (an exact name before any pattern; among patterns, the one with the most
//      characters other than '*'), and among equally specific ones the object whose name sorts
//      first;
//   2. else usage.budgets in the config (the first entry that matches);
//   3. else none.
// An object that cannot be read (a missing or malformed field) applies to no namespace, and the
// reason is logged; it never stops the others.
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/api_client.h"
#include "cluster/informer.h"
#include "common/result.h"
#include "usage/budget.h"

namespace gpugate::cluster {

inline constexpr std::string_view kGpuBudgetCollection = "/apis/gpugate.io/v1alpha1/gpubudgets";

struct BudgetObject {
  std::vector<std::string> namespaces;  // patterns
  usage::Budget budget;                 // budget.pattern unused
};

// Reads a GPUBudget object. Rolling windows shorter than a day are refused (the usage books
// count such windows to the second only for the config's budgets), and so are windows longer
// than the history kept (`historyMonths`, as the config's budgets are held to).
Result<BudgetObject> DecodeGpuBudget(const nlohmann::json& object, int historyMonths);

// The budget for `ns` among `objects` (by object name), by the list above's step 1; nullopt when
// none matches.
std::optional<usage::Budget> ObjectBudgetFor(const std::map<std::string, BudgetObject>& objects,
                                             std::string_view ns);

// Watches the GPUBudget objects and answers which budget applies to a namespace, the config's
// budgets behind them. Thread-safe.
class GpuBudgets {
 public:
  // `client` must outlive this. `onError` hears of objects that cannot be read and
  // of the watch's failures.
  GpuBudgets(ApiClient& client, usage::UsageConfig config,
             std::function<void(const std::string&)> onError);
  ~GpuBudgets();

  void Start() { informer_.Start(); }
  void Stop() { informer_.Stop(); }
  // Until the first list, only the config's budgets apply.
  bool Synced() const { return informer_.Synced(); }

  std::optional<usage::Budget> For(std::string_view ns) const;

 private:
  InformerHandlers Handlers();
  // The object's entry, or nothing (and a report) when it cannot be read.
  std::optional<BudgetObject> Read(const nlohmann::json& object) const;

  const usage::UsageConfig config_;
  const std::function<void(const std::string&)> onError_;
  mutable std::mutex mu_;
  std::map<std::string, BudgetObject> objects_;  // guarded by mu_; by object name
  Informer informer_;                            // last: its thread uses the members above
};

}  // namespace gpugate::cluster
