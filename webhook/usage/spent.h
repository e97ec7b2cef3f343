// What a namespace has spent over a span: the book's finished pods plus the running ones, which
// the caller passes as accruals over [started, now) (accruals.h) and which never enter the book.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string_view>
#include <utility>

#include "usage/usage_book.h"

namespace gpugate::usage {

// Milli-GPU-seconds per key within book.Counted(span): the book's totals plus each running
// accrual's share of that span.
std::map<UsageKey, int64_t> Spent(const UsageBook& book, std::span<const Accrual> running,
                                  Span span);

// The same per (local day, key), for the days that begin in `span` (reports).
std::map<std::pair<local_days, UsageKey>, int64_t> DailySpent(const UsageBook& book,
                                                              std::span<const Accrual> running,
                                                              Span span);

// What a budget limit named `limit` counts of `spent` for namespace `ns`: a resource or figure
// ("nvidia.com/gpu") sums every GPU model of it, "resource@model" that model's only.
int64_t SpentOn(const std::map<UsageKey, int64_t>& spent, std::string_view ns,
                std::string_view limit);

}  // namespace gpugate::usage
