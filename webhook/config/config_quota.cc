// The quota section: the ledger's journal, hard limits per namespace and weighted figures.
// docs/quota.md explains what they mean; docs/configuration.md lists the keys.
#include <optional>
#include <string>
#include <utility>

#include "common/strings.h"
#include "config/config_sections.h"
#include "config/k8s_names.h"
#include "quota/amounts.h"

namespace gpugate::config {
namespace {

using quota::Amounts;

constexpr std::string_view kLimitWhat = "a non-negative number with at most 3 decimals";
constexpr std::string_view kWeightWhat = "a positive number with at most 3 decimals";

// The section while it is read. Limits may name figures from `weights` and flavors from
// `flavors`, which may come later in the file, so `namespaces` (and `defaultFlavors`) are kept as
// cursors and read once the rest of the section is known.
struct QuotaSection {
  const policy::Settings& settings;
  quota::QuotaConfig quota;
  std::optional<Cursor> namespaces;
  std::optional<Cursor> defaultFlavors;
};

// An unquoted decimal with at most three fractional digits, in milli-units. Quoted numbers are
// refused, as integers are everywhere else in the file.
Status ReadMilli(const Cursor& value, std::string_view what, int64_t& out) {
  if (!value.node().IsScalar() || value.IsQuoted()) return value.FailExpected(what);
  Result<int64_t> milli = quota::ParseMilli(value.node().Scalar());
  if (!milli) return value.FailExpected(what);
  out = *milli;
  return {};
}

// A key naming one resource: an exact name that `resources` manages. Patterns are refused, since
// a limit or a weight applies to one resource name.
Status CheckManagedResource(const Cursor& keyAt, const std::string& name,
                            const policy::Settings& settings, std::string_view what) {
  if (name.find('*') != std::string::npos) {
    return keyAt.Fail("must be an exact resource name, not a pattern, got " + JsonQuote(name));
  }
  if (!IsExtendedResourceName(name) || settings.Find(name) == nullptr) {
    return keyAt.FailExpected(what);
  }
  return {};
}

// --- weights ---

Status ReadFigure(const Cursor& value, const policy::Settings& settings, Amounts& out) {
  Amounts weights;
  auto st = VisitEntries(
      value, [&](const std::string& resource, const Cursor& keyAt, const Cursor& weight) -> Status {
        if (auto st = CheckManagedResource(keyAt, resource, settings,
                                           "a resource gpugate manages (see resources)");
            !st) {
          return st;
        }
        int64_t milli = 0;
        if (auto st = ReadMilli(weight, kWeightWhat, milli); !st) return st;
        if (milli == 0) return weight.FailExpected(kWeightWhat);
        weights[resource] = milli;
        return {};
      });
  if (!st) return st;
  if (weights.empty()) return value.Fail("must weigh at least one resource");
  out = std::move(weights);
  return {};
}

Status ReadWeights(const Cursor& value, QuotaSection& s) {
  std::map<std::string, Amounts, std::less<>> figures;
  auto st = VisitEntries(
      value, [&](const std::string& figure, const Cursor& keyAt, const Cursor& weights) -> Status {
        if (!IsQualifiedName(figure)) {
          return keyAt.FailExpected("a figure name such as \"gpu-equivalents\"");
        }
        if (s.settings.Find(figure) != nullptr) {
          return keyAt.Fail("is a managed resource; a figure needs a name of its own, got " +
                            JsonQuote(figure));
        }
        return ReadFigure(weights, s.settings, figures[figure]);
      });
  if (!st) return st;
  s.quota.weights = std::move(figures);
  return {};
}

// --- namespaces ---

// "resource@flavor": the flavor must be one of quota.flavors.
Status CheckFlavor(const Cursor& keyAt, const std::string& name, const quota::QuotaConfig& quota,
                   std::string_view flavor) {
  for (const policy::Flavor& f : quota.flavors) {
    if (f.name == flavor) return {};
  }
  return keyAt.Fail("names flavor " + JsonQuote(std::string(flavor)) +
                    ", which quota.flavors does not define, in " + JsonQuote(name));
}

Status ReadLimits(const Cursor& value, const QuotaSection& s, Amounts& out) {
  Amounts limits;
  auto st = VisitEntries(
      value, [&](const std::string& name, const Cursor& keyAt, const Cursor& limit) -> Status {
        if (auto st = CheckLimitName(keyAt, name, s.settings, s.quota); !st) return st;
        return ReadMilli(limit, kLimitWhat, limits[name]);
      });
  if (!st) return st;
  out = std::move(limits);
  return {};
}

Status ReadNamespaces(const Cursor& value, QuotaSection& s) {
  std::map<std::string, Amounts, std::less<>> namespaces;
  auto st = VisitEntries(
      value, [&](const std::string& ns, const Cursor& keyAt, const Cursor& limits) -> Status {
        if (!IsDnsLabel(ns)) return keyAt.FailExpected("a namespace name such as \"team-a\"");
        return ReadLimits(limits, s, namespaces[ns]);
      });
  if (!st) return st;
  s.quota.limits = std::move(namespaces);
  return {};
}

constexpr Field<QuotaSection> kQuotaFields[] = {
    // "" keeps the ledger in memory only, as leaving the key out does.
    {"stateFile", [](const Cursor& v, QuotaSection& s) { return v.ReadString(s.quota.stateFile); }},
    {"namespaces",
     [](const Cursor& v, QuotaSection& s) {
       s.namespaces = v;
       return Status{};
     }},
    {"weights", ReadWeights},
    {"flavors", [](const Cursor& v, QuotaSection& s) { return ReadFlavors(v, s.quota.flavors); }},
    {"defaultFlavors",
     [](const Cursor& v, QuotaSection& s) {
       s.defaultFlavors = v;
       return Status{};
     }},
};

}  // namespace

Status CheckLimitName(const Cursor& keyAt, const std::string& name,
                      const policy::Settings& settings, const quota::QuotaConfig& quota) {
  std::string resource = name;
  if (auto flavored = policy::SplitFlavored(name)) {
    if (auto st = CheckFlavor(keyAt, name, quota, flavored->second); !st) return st;
    resource = std::string(flavored->first);
  }
  if (quota.weights.contains(resource)) return {};
  return CheckManagedResource(
      keyAt, resource, settings,
      "a resource gpugate manages (see resources) or a figure from quota.weights");
}

Status ReadQuota(const Cursor& value, Config& out) {
  QuotaSection section{.settings = out.policy};
  if (auto st = ReadFields(value, kQuotaFields, section); !st) return st;
  if (section.defaultFlavors) {
    auto st = ReadDefaultFlavors(*section.defaultFlavors, section.quota.flavors,
                                 section.quota.defaultFlavors);
    if (!st) return st;
  }
  if (section.namespaces) {
    if (auto st = ReadNamespaces(*section.namespaces, section); !st) return st;
  }
  out.quota = std::move(section.quota);
  return {};
}

}  // namespace gpugate::config
