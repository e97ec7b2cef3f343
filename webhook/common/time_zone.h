// Time zones from the system's TZif files (/usr/share/zoneinfo, Debian's tzdata), for the local
// days and calendar periods GPU-hour budgets count in. libstdc++ 12 has no std::chrono tzdb, so
// gpugate reads the files itself (docs/decisions.md, "Time zones from TZif files").
//
// A TimeZone is immutable once loaded: share it freely between threads.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <string_view>

#include "common/result.h"

namespace gpugate {

class PosixTzRule;

class TimeZone {
 public:
  // UTC, built in: needs no file.
  static TimeZone Utc();

  // The zone `name` ("Europe/Berlin") from `dir`'s TZif files. "UTC" is the built-in zone. A
  // name that could leave `dir` (absolute, "..", odd characters), a missing file, a file that is
  // not TZif version 2 or later, a truncated or inconsistent one and a leap-second ("right/")
  // zone are errors naming the zone and the reason.
  static Result<TimeZone> Load(std::string_view name, std::string_view dir = "/usr/share/zoneinfo");

  // The zone from a TZif file's bytes; `name` is what name() reports and errors say.
  static Result<TimeZone> FromTzif(std::string_view name, std::string_view bytes);

  const std::string& name() const;

  // Seconds east of UTC in force at `t` (+3600 in Berlin in winter, -14400 in New York in summer).
  std::chrono::seconds OffsetAt(std::chrono::sys_seconds t) const;

  // The civil time on the zone's clocks at `t`.
  std::chrono::local_seconds ToLocal(std::chrono::sys_seconds t) const {
    return std::chrono::local_seconds((t + OffsetAt(t)).time_since_epoch());
  }

  // The local calendar day `t` falls on.
  std::chrono::local_days DayOf(std::chrono::sys_seconds t) const {
    return std::chrono::floor<std::chrono::days>(ToLocal(t));
  }

  // The UTC instant of civil time `local`. Where clocks go back and `local` happens twice, the
  // earlier instant; where clocks jump forward and `local` never happens, the instant of the jump
  // (the first instant whose civil time is later than `local`). So every local time maps to one
  // instant, later local times never to earlier instants, and StartOf(d + 1) is where day d ends.
  std::chrono::sys_seconds FromLocal(std::chrono::local_seconds local) const;

  // When local day `day` begins: FromLocal(its midnight). A day is 24 h but for the days clocks
  // change (23 h, 25 h, 23.5 h on Lord Howe Island).
  std::chrono::sys_seconds StartOf(std::chrono::local_days day) const {
    return FromLocal(std::chrono::local_seconds(day));
  }

  // "2026-11-01T00:00:00+01:00": `t` in local time with its offset (RFC 3339), for messages.
  std::string Rfc3339(std::chrono::sys_seconds t) const;

 private:
  struct Data;
  explicit TimeZone(std::shared_ptr<const Data> data) : data_(std::move(data)) {}

  std::shared_ptr<const Data> data_;
};

}  // namespace gpugate
