// vcuda-core-shares: tencent.com/vcuda-core counts hundredths of a card. The vCUDA device
// plugin can give a container a share of one card (1-99) or whole cards (100, 200, ...), never
// a card and a half; such a pod would stay pending or fail at allocation.
#include "policy/checks.h"
#include "policy/resource_values.h"

namespace gpugate::policy {

void CheckVcudaCoreShares(const ManagedPod& managed, std::vector<Violation>& out) {
  const PodSpecView& pod = managed.spec();
  const Settings& settings = managed.settings();
  if (settings.Find(kVcudaCore) == nullptr) return;
  for (const ContainerView& c : pod.containers) {
    for (const ResourceValue& v : managed.Values(c)) {
      if (v.resource != kVcudaCore) continue;
      std::optional<Quantity> q = ValidWholeQuantity(*v.text);
      std::optional<int64_t> shares = q ? q->ToInt64() : std::nullopt;
      if (!shares || *shares < 100 || *shares % 100 == 0) continue;
      out.push_back({kVcudaCoreSharesRule,
                     DescribeValue(pod, c, v) +
                         " must be below 100 (a share of one card) or a multiple of 100 (whole "
                         "cards)",
                     DescribeField(pod, c, v)});
    }
  }
}

}  // namespace gpugate::policy
