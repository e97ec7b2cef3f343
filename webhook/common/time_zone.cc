#include "common/time_zone.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <utility>
#include <vector>

#include "common/files.h"
#include "common/posix_tz.h"

namespace gpugate {

using std::chrono::days;
using std::chrono::local_seconds;
using std::chrono::seconds;
using std::chrono::sys_seconds;

namespace {

// Big-endian readers over the file's bytes; `ok` turns false on the first read past the end.
struct Bytes {
  std::string_view rest;
  bool ok = true;

  uint64_t Read(size_t n) {
    if (rest.size() < n) {
      ok = false;
      rest = {};
      return 0;
    }
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i) v = (v << 8) | static_cast<unsigned char>(rest[i]);
    rest.remove_prefix(n);
    return v;
  }
  void Skip(uint64_t n) {
    if (rest.size() < n) ok = false;
    rest.remove_prefix(std::min<uint64_t>(n, rest.size()));
  }
};

// A TZif header: its version and the six counts.
struct Header {
  char version = 0;
  uint64_t isut = 0, isstd = 0, leap = 0, time = 0, type = 0, chars = 0;
};

std::optional<Header> ReadHeader(Bytes& b) {
  if (!b.rest.starts_with("TZif")) return std::nullopt;
  Header h;
  h.version = b.rest.size() > 4 ? b.rest[4] : 0;
  b.Skip(20);
  h.isut = b.Read(4), h.isstd = b.Read(4), h.leap = b.Read(4);
  h.time = b.Read(4), h.type = b.Read(4), h.chars = b.Read(4);
  if (!b.ok) return std::nullopt;
  return h;
}

}  // namespace

// Transitions in time order, each with the offset in force from it on; before the first, the
// file's type 0; after the last, the footer rule when there is one.
struct TimeZone::Data {
  std::string name;
  seconds initial{0};
  std::vector<sys_seconds> at;
  std::vector<seconds> offset;
  std::optional<PosixTzRule> footer;

  // The version 2+ data block described by `h`; "" or why it is unusable.
  std::string ReadBlock(Bytes& b, const Header& h);
  // The footer, "\n" rule "\n" (an empty rule: none); "" or why it is unusable.
  std::string ReadFooter(std::string_view rest);

  seconds OffsetAt(sys_seconds t) const {
    auto it = std::upper_bound(at.begin(), at.end(), t);
    if (footer && (at.empty() || (it == at.end() && t > at.back()))) return footer->OffsetAt(t);
    if (it == at.begin()) return initial;
    return offset[static_cast<size_t>(it - at.begin()) - 1];
  }

  // The changes in [from, to), each with the offset in force from it on.
  std::vector<std::pair<sys_seconds, seconds>> ChangesBetween(sys_seconds from,
                                                              sys_seconds to) const {
    std::vector<std::pair<sys_seconds, seconds>> out;
    for (auto it = std::lower_bound(at.begin(), at.end(), from); it != at.end() && *it < to; ++it) {
      out.emplace_back(*it, offset[static_cast<size_t>(it - at.begin())]);
    }
    if (!footer) return out;
    using namespace std::chrono;
    year first = year_month_day{floor<days>(from)}.year() - years(1);
    year last = year_month_day{floor<days>(to)}.year() + years(1);
    for (year y = first; y <= last; y += years(1)) {
      for (const auto& change : footer->ChangesIn(y)) {
        bool pastTable = at.empty() || change.first > at.back();
        if (pastTable && change.first >= from && change.first < to) out.push_back(change);
      }
    }
    return out;
  }
};

namespace {

bool IsSafeName(std::string_view name) {
  if (name.empty() || name.size() > 255 || name.front() == '/') return false;
  size_t start = 0;
  while (start <= name.size()) {
    size_t slash = std::min(name.find('/', start), name.size());
    std::string_view part = name.substr(start, slash - start);
    if (part.empty() || part == "." || part == ".." || part.front() == '-') return false;
    for (char c : part) {
      bool fine = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                  c == '_' || c == '-' || c == '+' || c == '.';
      if (!fine) return false;
    }
    start = slash + 1;
  }
  return true;
}

}  // namespace

TimeZone TimeZone::Utc() {
  static const auto utc = [] {
    auto data = std::make_shared<Data>();
    data->name = "UTC";
    return std::shared_ptr<const Data>(std::move(data));
  }();
  return TimeZone(utc);
}

Result<TimeZone> TimeZone::Load(std::string_view name, std::string_view dir) {
  if (name == "UTC") return Utc();
  std::string quoted = "time zone \"" + std::string(name) + "\": ";
  if (!IsSafeName(name)) return Fail(quoted + "not a zone name such as \"Europe/Berlin\"");
  Result<std::string> bytes = ReadFile(std::string(dir) + "/" + std::string(name));
  if (!bytes) return Fail(quoted + bytes.error().message);
  return FromTzif(name, *bytes);
}

std::string TimeZone::Data::ReadBlock(Bytes& b, const Header& h) {
  std::vector<uint64_t> times(h.time), types(h.time);
  for (auto& t : times) t = b.Read(8);
  for (auto& t : types) t = b.Read(1);
  std::vector<seconds> offsets(h.type);
  for (auto& o : offsets) {
    o = seconds(static_cast<int32_t>(b.Read(4)));
    b.Skip(2);  // isdst, abbreviation index
    // RFC 8536's range, within a day of UTC, which FromLocal relies on.
    if (o <= seconds(-89'999) || o >= seconds(93'600)) return "a UTC offset out of range";
  }
  b.Skip(h.chars + h.isstd + h.isut);
  if (!b.ok) return "truncated";
  for (size_t i = 0; i < times.size(); ++i) {
    if (types[i] >= offsets.size()) return "a transition names a missing local time type";
    sys_seconds when{seconds(static_cast<int64_t>(times[i]))};
    if (i > 0 && when <= at.back()) return "transitions out of order";
    at.push_back(when);
    offset.push_back(offsets[types[i]]);
  }
  initial = offsets[0];
  return "";
}

std::string TimeZone::Data::ReadFooter(std::string_view rest) {
  if (rest.size() < 2 || rest.front() != '\n') return "truncated (no footer)";
  size_t end = rest.find('\n', 1);
  if (end == std::string_view::npos) return "truncated footer";
  std::string_view rule = rest.substr(1, end - 1);
  if (rule.empty()) return "";
  Result<PosixTzRule> parsed = PosixTzRule::Parse(rule);
  if (!parsed) return parsed.error().message;
  footer = *parsed;
  return "";
}

Result<TimeZone> TimeZone::FromTzif(std::string_view name, std::string_view bytes) {
  auto bad = [&](std::string_view why) {
    return Fail("time zone \"" + std::string(name) + "\": " + std::string(why));
  };
  Bytes b{bytes};
  std::optional<Header> v1 = ReadHeader(b);
  if (!v1) return bad("not a TZif file");
  if (v1->version < '2') {
    return bad("TZif version 1 has no 64-bit times; version 2 or later needed");
  }
  b.Skip(v1->time * 5 + v1->type * 6 + v1->chars + v1->leap * 8 + v1->isstd + v1->isut);
  std::optional<Header> h = b.ok ? ReadHeader(b) : std::nullopt;
  if (!h) return bad("truncated (no version 2 header)");
  if (h->leap != 0) return bad("leap-second zones (right/...) are not supported");
  if (h->type == 0 || h->type > 256 || h->time > 100000) return bad("implausible counts");
  auto data = std::make_shared<Data>();
  data->name = std::string(name);
  if (std::string why = data->ReadBlock(b, *h); !why.empty()) return bad(why);
  if (std::string why = data->ReadFooter(b.rest); !why.empty()) return bad(why);
  return TimeZone(std::move(data));
}

const std::string& TimeZone::name() const { return data_->name; }

seconds TimeZone::OffsetAt(sys_seconds t) const { return data_->OffsetAt(t); }

sys_seconds TimeZone::FromLocal(local_seconds local) const {
  // Offsets lie within a day of UTC, so the changes that matter are within two days of `local`.
  sys_seconds asUtc{local.time_since_epoch()};
  sys_seconds from = asUtc - days(2), to = asUtc + days(2);
  auto changes = data_->ChangesBetween(from, to);
  seconds before = data_->OffsetAt(from - seconds(1));
  sys_seconds segmentStart = from;
  std::optional<sys_seconds> best;
  for (size_t i = 0; i <= changes.size(); ++i) {
    sys_seconds segmentEnd = i < changes.size() ? changes[i].first : to;
    sys_seconds t = asUtc - before;
    if (t >= segmentStart && t < segmentEnd && (!best || t < *best)) best = t;
    if (i == changes.size()) break;
    // A gap: the clocks jump over `local` at this change.
    seconds after = changes[i].second;
    sys_seconds at = changes[i].first;
    if (!best && asUtc - before >= at && asUtc - after < at) best = at;
    segmentStart = at;
    before = after;
  }
  return best ? *best : asUtc - data_->OffsetAt(asUtc);
}

std::string TimeZone::Rfc3339(sys_seconds t) const {
  using namespace std::chrono;
  local_seconds local = ToLocal(t);
  local_days day = floor<days>(local);
  year_month_day ymd{day};
  hh_mm_ss<seconds> clock{local - day};
  seconds off = OffsetAt(t);
  char sign = off < seconds(0) ? '-' : '+';
  int64_t a = std::abs(off.count());
  char buf[64];
  std::snprintf(buf, sizeof buf, "%04d-%02u-%02uT%02d:%02d:%02d%c%02d:%02d",
                static_cast<int>(ymd.year()), static_cast<unsigned>(ymd.month()),
                static_cast<unsigned>(ymd.day()), static_cast<int>(clock.hours().count()),
                static_cast<int>(clock.minutes().count()),
                static_cast<int>(clock.seconds().count()), sign, static_cast<int>(a / 3600),
                static_cast<int>(a % 3600 / 60));
  return buf;
}

}  // namespace gpugate
