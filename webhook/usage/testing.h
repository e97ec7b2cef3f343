// Helpers shared by the usage layer's tests: instants, zones and a book rendered as a short
// string, so a table row states the whole expected state.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <string_view>

#include "common/time_zone.h"
#include "quota/amounts.h"
#include "usage/civil_date.h"
#include "usage/usage_book.h"

namespace gpugate::usage::testing {

using namespace std::chrono;

inline sys_seconds Utc(int y, unsigned mo, unsigned d, int h = 0, int mi = 0, int s = 0) {
  return sys_days{year{y} / mo / d} + hours(h) + minutes(mi) + seconds(s);
}

// An instant given as local civil time in `zone`.
inline sys_seconds At(const TimeZone& zone, int y, unsigned mo, unsigned d, int h = 0, int mi = 0) {
  return zone.FromLocal(local_days{year{y} / mo / d} + hours(h) + minutes(mi));
}

inline TimeZone Zone(std::string_view name) {
  Result<TimeZone> zone = TimeZone::Load(name);
  EXPECT_TRUE(zone.has_value()) << (zone ? "" : zone.error().message);
  return zone ? *zone : TimeZone::Utc();
}

inline UsageKey Key(std::string ns, std::string resource = "nvidia.com/gpu",
                    std::string model = "") {
  return {std::move(ns), std::move(resource), std::move(model)};
}

// "team-a/nvidia.com/gpu@a100 2026-11-01=1h 2026-11-02=0.5h; ..." in GPU-hours per day to the
// thousandth ("~" marks a figure cut short there), keys in order, empty days left out.
inline std::string Render(const UsageBook& book) {
  std::string out;
  for (const auto& [key, usage] : book.keys()) {
    if (!out.empty()) out += "; ";
    out += key.ns + "/" + key.resource + (key.model.empty() ? "" : "@" + key.model);
    for (size_t i = 0; i < usage.days.size(); ++i) {
      if (usage.days[i] == 0) continue;
      int64_t v = usage.days[i];
      std::string hours = quota::FormatMilli(v / 3600) + (v % 3600 == 0 ? "" : "~");
      out += " " + FormatDate(usage.first + days(static_cast<int64_t>(i))) + "=" + hours + "h";
    }
  }
  return out;
}

}  // namespace gpugate::usage::testing
