// The POSIX TZ rule a TZif file ends with ("CET-1CEST,M3.5.0,M10.5.0/3"): how a zone keeps time
// after its last listed transition, e.g. past 2037. Internal to time_zone.cc, and tested alone.
#pragma once

#include <chrono>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.h"

namespace gpugate {

// One rule: a standard offset and, for zones with daylight saving time, a DST offset and the two
// yearly changes. Offsets are seconds east of UTC (the POSIX text writes them west: "CET-1" is
// UTC+1).
class PosixTzRule {
 public:
  // Parses the footer text: `std offset [dst [offset] [,start[/time],end[/time]]]` with names
  // alphabetic or <quoted>, dates Jn, n or Mm.w.d and times that may be negative or past 24 h
  // (TZif version 3). A DST name without its two dates is refused: the default rule POSIX
  // leaves to the implementation is never written by zic.
  static Result<PosixTzRule> Parse(std::string_view text);

  // The changes in UTC `year` (by its local calendar), each with the offset in force from it on,
  // in time order; empty for a zone without DST.
  std::vector<std::pair<std::chrono::sys_seconds, std::chrono::seconds>> ChangesIn(
      std::chrono::year year) const;

  // The offset in force at `t`.
  std::chrono::seconds OffsetAt(std::chrono::sys_seconds t) const;

  bool HasDst() const { return hasDst_; }
  std::chrono::seconds StdOffset() const { return std_; }

 private:
  // A change date: kind 'J' (Jn: day n of 1-365, Feb 29 never counted), 'N' (n: day n of
  // 0-365) or 'M' (Mm.w.d: weekday d of week w of month m, w = 5 meaning the last).
  struct Date {
    char kind = 'M';
    int month = 0, week = 0, day = 0;  // Mm.w.d; `day` alone for J and N
    std::chrono::seconds time{7200};   // local time of the change, 02:00 unless written
  };

  std::chrono::local_days DayIn(const Date& date, std::chrono::year year) const;

  std::chrono::seconds std_{0};
  std::chrono::seconds dst_{0};
  bool hasDst_ = false;
  Date start_, end_;
};

}  // namespace gpugate
