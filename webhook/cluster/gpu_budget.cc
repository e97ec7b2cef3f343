#include "cluster/gpu_budget.h"

#include <algorithm>
#include <utility>

#include "cluster/kube_object.h"
#include "common/strings.h"
#include "quota/amounts.h"

namespace gpugate::cluster {
namespace {

using nlohmann::json;

// As in the config: a budget of more than a billion GPU-hours is a typo.
constexpr int64_t kMaxMilliGpuHours = int64_t{1'000'000'000} * quota::kMilli;

// "team-a" (no '*') before any pattern; among patterns, more literal characters first.
std::pair<int, size_t> Specificity(std::string_view pattern) {
  const size_t stars = static_cast<size_t>(std::count(pattern.begin(), pattern.end(), '*'));
  return {stars == 0 ? 1 : 0, pattern.size() - stars};
}

Result<quota::Amounts> ReadGpuHours(const json* hours) {
  if (!hours || !hours->is_object() || hours->empty()) {
    return Fail("spec.gpuHours: must map at least one resource or figure to GPU-hours");
  }
  quota::Amounts out;
  for (const auto& [name, value] : hours->items()) {
    const std::string where = "spec.gpuHours." + name;
    if (name.empty() || name.front() == '@' || name.back() == '@') {
      return Fail(where + ": a resource, a figure or resource@model");
    }
    std::string text = value.is_string()   ? value.get<std::string>()
                       : value.is_number() ? value.dump()
                                           : "";
    Result<int64_t> milli = quota::ParseMilli(text);
    if (!milli || *milli > kMaxMilliGpuHours) {
      return Fail(where + ": want a number of GPU-hours with at most 3 decimals, got " +
                  value.dump());
    }
    out[name] = *milli;
  }
  return out;
}

Result<usage::PeriodSpec> ReadPeriod(const json& spec, int historyMonths) {
  const json* period = At(spec, {"period"});
  if (!period || !period->is_string())
    return Fail("spec.period: want month, week or rolling:<duration>");
  Result<usage::PeriodSpec> parsed = usage::ParsePeriodSpec(period->get<std::string>());
  if (!parsed) return Fail("spec.period: " + parsed.error().message);
  if (parsed->kind != usage::PeriodKind::kRolling) return parsed;
  if (parsed->window < std::chrono::hours(24)) {
    return Fail(
        "spec.period: a rolling window in a GPUBudget must be 24h or longer (shorter "
        "ones are counted to the second only for usage.budgets in the config)");
  }
  const auto kept = std::chrono::days(28) * (historyMonths - 1);
  if (parsed->window > kept) {
    return Fail(
        "spec.period: " + usage::FormatPeriodSpec(*parsed) +
        " is longer than the history kept (usage.historyMonths: " + std::to_string(historyMonths) +
        " keeps " + std::to_string(kept.count()) + " days for certain)");
  }
  return parsed;
}

}  // namespace

Result<BudgetObject> DecodeGpuBudget(const json& object, int historyMonths) {
  const json* spec = At(object, {"spec"});
  if (!spec || !spec->is_object()) return Fail("spec: must be an object");
  BudgetObject out;
  const json* namespaces = At(*spec, {"namespaces"});
  if (!namespaces || !namespaces->is_array() || namespaces->empty()) {
    return Fail("spec.namespaces: want a list of namespace names or patterns");
  }
  for (const json& pattern : *namespaces) {
    if (!pattern.is_string() || pattern.get_ref<const std::string&>().empty()) {
      return Fail("spec.namespaces: want names or patterns such as \"team-*\", got " +
                  pattern.dump());
    }
    out.namespaces.push_back(pattern.get<std::string>());
  }
  Result<usage::PeriodSpec> period = ReadPeriod(*spec, historyMonths);
  if (!period) return std::unexpected(period.error());
  out.budget.period = *period;
  Result<quota::Amounts> hours = ReadGpuHours(At(*spec, {"gpuHours"}));
  if (!hours) return std::unexpected(hours.error());
  out.budget.gpuHours = std::move(*hours);
  if (const json* warn = At(*spec, {"warnAt"})) {
    if (!warn->is_number_integer() || warn->get<int64_t>() < 0 || warn->get<int64_t>() > 100) {
      return Fail("spec.warnAt: want a percentage from 0 (no warning) to 100, got " + warn->dump());
    }
    out.budget.warnAtPercent = warn->get<int>();
  }
  return out;
}

std::optional<usage::Budget> ObjectBudgetFor(const std::map<std::string, BudgetObject>& objects,
                                             std::string_view ns) {
  const BudgetObject* best = nullptr;
  std::pair<int, size_t> bestRank{-1, 0};
  for (const auto& [name, object] : objects) {  // by name: the first of equals is kept
    for (const std::string& pattern : object.namespaces) {
      if (!GlobMatch(pattern, ns)) continue;
      if (auto rank = Specificity(pattern); rank > bestRank) {
        best = &object;
        bestRank = rank;
      }
    }
  }
  if (!best) return std::nullopt;
  return best->budget;
}

GpuBudgets::GpuBudgets(ApiClient& client, usage::UsageConfig config,
                       std::function<void(const std::string&)> onError)
    : config_(std::move(config)),
      onError_(std::move(onError)),
      informer_(client, std::string(kGpuBudgetCollection), Handlers()) {}

GpuBudgets::~GpuBudgets() { informer_.Stop(); }

std::optional<BudgetObject> GpuBudgets::Read(const json& object) const {
  Result<BudgetObject> read = DecodeGpuBudget(object, config_.historyMonths);
  if (read) return std::move(*read);
  if (onError_) {
    onError_("GPUBudget " + StringAt(object, {"metadata", "name"}) +
             " applies to no namespace: " + read.error().message);
  }
  return std::nullopt;
}

InformerHandlers GpuBudgets::Handlers() {
  auto onList = [this] {
    return CollectList([this](std::vector<json> items) {
      std::map<std::string, BudgetObject> objects;
      for (const json& item : items) {
        if (std::optional<BudgetObject> read = Read(item)) {
          objects[StringAt(item, {"metadata", "name"})] = std::move(*read);
        }
      }
      std::lock_guard lock(mu_);
      objects_ = std::move(objects);
    });
  };
  auto onEvent = [this](const WatchEvent& event) {
    const std::string name = StringAt(event.object, {"metadata", "name"});
    std::optional<BudgetObject> read;
    if (event.type != WatchEvent::Type::kDeleted) read = Read(event.object);
    std::lock_guard lock(mu_);
    if (read) {
      objects_[name] = std::move(*read);
    } else {
      objects_.erase(name);
    }
  };
  return {onList, onEvent, onError_};
}

std::optional<usage::Budget> GpuBudgets::For(std::string_view ns) const {
  {
    std::lock_guard lock(mu_);
    if (std::optional<usage::Budget> object = ObjectBudgetFor(objects_, ns)) return object;
  }
  if (const usage::Budget* configured = usage::BudgetFor(config_, ns)) return *configured;
  return std::nullopt;
}

}  // namespace gpugate::cluster
