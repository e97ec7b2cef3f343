#include "common/posix_tz.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace gpugate {
namespace {

using std::chrono::days;
using std::chrono::local_days;
using std::chrono::seconds;
using std::chrono::sys_seconds;

// A cursor over the rule's text; every reader consumes what it accepts and reports failure.
struct Reader {
  std::string_view rest;

  bool Take(char c) {
    if (rest.empty() || rest.front() != c) return false;
    rest.remove_prefix(1);
    return true;
  }
  bool AtDigit() const {
    return !rest.empty() && std::isdigit(static_cast<unsigned char>(rest[0]));
  }

  // An unsigned number of at most `maxDigits` digits.
  bool Number(int& out, size_t maxDigits = 3) {
    size_t n = 0;
    out = 0;
    while (AtDigit() && n < maxDigits) {
      out = out * 10 + (rest.front() - '0');
      rest.remove_prefix(1);
      ++n;
    }
    return n > 0;
  }

  // A zone abbreviation: three or more letters, or <...> holding letters, digits, '+' and '-'.
  bool Name() {
    if (Take('<')) {
      size_t close = rest.find('>');
      if (close == std::string_view::npos || close < 3) return false;
      rest.remove_prefix(close + 1);
      return true;
    }
    size_t n = 0;
    while (n < rest.size() && std::isalpha(static_cast<unsigned char>(rest[n]))) ++n;
    if (n < 3) return false;
    rest.remove_prefix(n);
    return true;
  }

  // [+-]hh[:mm[:ss]], hours up to 167 (TZif v3 times); the value as written, in seconds.
  bool Clock(seconds& out) {
    int sign = 1;
    if (Take('-'))
      sign = -1;
    else
      Take('+');
    int h = 0, m = 0, s = 0;
    if (!Number(h) || h > 167) return false;
    if (Take(':')) {
      if (!Number(m, 2) || m > 59) return false;
      if (Take(':') && (!Number(s, 2) || s > 59)) return false;
    }
    out = seconds(sign * (h * 3600 + m * 60 + s));
    return true;
  }
};

}  // namespace

Result<PosixTzRule> PosixTzRule::Parse(std::string_view text) {
  auto bad = [&](std::string_view why) {
    return Fail("TZ rule \"" + std::string(text) + "\": " + std::string(why));
  };
  PosixTzRule rule;
  Reader r{text};
  seconds west{0};
  if (!r.Name()) return bad("expected a zone name");
  if (!r.Clock(west)) return bad("expected a UTC offset after the name");
  rule.std_ = -west;
  if (r.rest.empty()) return rule;
  if (!r.Name()) return bad("expected a DST zone name");
  rule.hasDst_ = true;
  rule.dst_ = rule.std_ + seconds(3600);
  if (!r.rest.empty() && r.rest.front() != ',') {
    if (!r.Clock(west)) return bad("expected a DST offset");
    rule.dst_ = -west;
  }
  auto readDate = [&](Date& d) {
    if (!r.Take(',')) return false;
    if (r.Take('M')) {
      d.kind = 'M';
      if (!r.Number(d.month, 2) || !r.Take('.') || !r.Number(d.week, 1) || !r.Take('.') ||
          !r.Number(d.day, 1)) {
        return false;
      }
      if (d.month < 1 || d.month > 12 || d.week < 1 || d.week > 5 || d.day > 6) return false;
    } else {
      d.kind = r.Take('J') ? 'J' : 'N';
      if (!r.Number(d.day) || d.day > 365 || (d.kind == 'J' && d.day < 1)) return false;
    }
    return !r.Take('/') || r.Clock(d.time);
  };
  if (!readDate(rule.start_) || !readDate(rule.end_))
    return bad("expected ,start[/time],end[/time]");
  if (!r.rest.empty()) return bad("unexpected text at the end");
  return rule;
}

local_days PosixTzRule::DayIn(const Date& date, std::chrono::year year) const {
  using namespace std::chrono;
  local_days jan1{year / January / 1};
  if (date.kind == 'N') return jan1 + days(date.day);
  if (date.kind == 'J') {  // Feb 29 is never counted: day 60 is always March 1
    int n = date.day - 1;
    if (year.is_leap() && date.day >= 60) ++n;
    return jan1 + days(n);
  }
  month m{static_cast<unsigned>(date.month)};
  weekday wd{static_cast<unsigned>(date.day)};
  if (date.week == 5) return local_days{year / m / wd[last]};
  return local_days{year / m / wd[static_cast<unsigned>(date.week)]};
}

std::vector<std::pair<sys_seconds, seconds>> PosixTzRule::ChangesIn(std::chrono::year year) const {
  if (!hasDst_) return {};
  // The start is written in standard time, the end in daylight time.
  auto at = [&](const Date& d, seconds before) {
    return sys_seconds((DayIn(d, year) + d.time).time_since_epoch() - before);
  };
  std::vector<std::pair<sys_seconds, seconds>> out = {{at(start_, std_), dst_},
                                                      {at(end_, dst_), std_}};
  std::sort(out.begin(), out.end());
  return out;
}

seconds PosixTzRule::OffsetAt(sys_seconds t) const {
  using namespace std::chrono;
  if (!hasDst_) return std_;
  year y = year_month_day{floor<days>(t)}.year();
  // The last change at or before t, looking back into the previous year (whose last change is
  // always before t: changes sit within a year's local calendar, give or take a week of offsets).
  seconds offset = std_;
  for (year each : {y - years(1), y, y + years(1)}) {
    for (const auto& [when, after] : ChangesIn(each)) {
      if (when <= t) offset = after;
    }
  }
  return offset;
}

}  // namespace gpugate
