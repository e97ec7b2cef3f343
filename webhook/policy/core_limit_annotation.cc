// core-limit-annotation: the vCUDA runtime reads tencent.com/vcuda-core-limit as the percent of
// a card's cores a container may use. Anything but 1-100 is either ignored or makes the
// container fail at start, long after admission; refusing it here names the annotation.
#include "common/strings.h"
#include "policy/checks.h"

namespace gpugate::policy {
namespace {

// Plain decimal digits only: no sign, no spaces, no exponent; leading zeros are harmless.
bool IsPercent(std::string_view s) {
  int value = 0;
  for (char ch : s) {
    if (ch < '0' || ch > '9') return false;
    value = value * 10 + (ch - '0');
    if (value > 100) return false;  // also keeps long inputs from overflowing
  }
  return value >= 1;
}

}  // namespace

void CheckCoreLimitAnnotation(const ManagedPod& managed, std::vector<Violation>& out) {
  const PodSpecView& pod = managed.spec();
  std::optional<std::string_view> value = pod.Annotation(kVcudaCoreLimitAnnotation);
  if (!value || IsPercent(*value)) return;
  std::string field =
      pod.metadataPath + ".annotations[" + std::string(kVcudaCoreLimitAnnotation) + "]";
  out.push_back({kCoreLimitAnnotationRule,
                 field + " " + JsonQuote(*value) + " must be an integer from 1 to 100", field});
}

}  // namespace gpugate::policy
