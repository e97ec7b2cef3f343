#include "cluster/record_book.h"

#include <algorithm>
#include <limits>

#include "usage/accruals.h"
#include "usage/book_codec.h"

namespace gpugate::cluster {
namespace {

using nlohmann::json;

usage::sys_seconds Seconds(WallClock::time_point t) {
  return std::chrono::floor<std::chrono::seconds>(t);
}

// The record's book, or why it cannot be read.
Result<usage::UsageBook> BookOf(const GpuQuotaRecord& record, const BookSettings& settings,
                                size_t maxBookBytes) {
  usage::BookOptions options = settings.options;
  options.maxBytes = std::min(options.maxBytes, maxBookBytes);
  if (record.usage.is_null()) return usage::UsageBook(settings.zone, options);
  return usage::DecodeBook(record.usage.dump(), settings.zone, options);
}

}  // namespace

Result<BookSettings> BookSettingsFor(const usage::UsageConfig& config) {
  Result<TimeZone> zone = TimeZone::Load(config.timeZone);
  if (!zone) return Fail("usage.timeZone: " + zone.error().message);
  return BookSettings{.zone = std::move(*zone), .options = usage::BookOptionsFor(config)};
}

std::optional<usage::Span> HeldSpan(const RecordedCharge& charge, const PodInfo* pod,
                                    WallClock::time_point now) {
  std::optional<WallClock::time_point> start = charge.started;
  if (!start && pod) start = pod->started;
  if (!start) return std::nullopt;
  WallClock::time_point end = now;
  if (pod && pod->ended) {
    end = *pod->ended;
  } else if (pod && pod->releaseAt) {
    end = *pod->releaseAt;
  }
  end = std::min(end, now);
  const usage::sys_seconds to = Seconds(end);
  return usage::Span{std::min(Seconds(*start), to), to};
}

std::vector<DroppedCharge> Dropped(const ChargeMap& before, const ChargeMap& after) {
  std::vector<DroppedCharge> out;
  for (const auto& [name, list] : before) {
    auto kept = after.find(name);
    for (const RecordedCharge& charge : list) {
      const bool stays = kept != after.end() &&
                         std::any_of(kept->second.begin(), kept->second.end(),
                                     [&](const RecordedCharge& c) { return c.uid == charge.uid; });
      if (!stays) out.push_back({name, charge});
    }
  }
  return out;
}

std::vector<std::string> AccrueDropped(GpuQuotaRecord& record,
                                       std::span<const DroppedCharge> dropped, const PodMap& pods,
                                       WallClock::time_point now, const BookSettings& settings,
                                       size_t maxBookBytes) {
  std::vector<std::string> problems;
  if (dropped.empty()) return problems;
  Result<usage::UsageBook> book = BookOf(record, settings, maxBookBytes);
  if (!book) {
    problems.push_back("usage of " + std::to_string(dropped.size()) + " finished pod(s) in " +
                       record.ns + " not recorded: its GPUQuota's status.usage cannot be read (" +
                       book.error().message + "); it is left as stored");
    return problems;
  }
  book->Prune(Seconds(now));
  for (const DroppedCharge& d : dropped) {
    auto pod = pods.find(d.pod);
    const PodInfo* shown =
        pod != pods.end() && pod->second.uid == d.charge.uid ? &pod->second : nullptr;
    std::optional<usage::Span> held = HeldSpan(d.charge, shown, now);
    if (!held) continue;  // never ran: nothing to accrue
    const std::vector<usage::Accrual> accruals =
        usage::Accruals(record.ns, d.charge.amounts, *held);
    if (Status st = book->Accrue(accruals); !st) {
      problems.push_back("usage of " + record.ns + "/" + d.pod + " (uid " + d.charge.uid +
                         ") not recorded: " + st.error().message);
    }
  }
  record.usage = book->keys().empty() ? json() : json::parse(usage::EncodeBook(*book));
  return problems;
}

size_t BookRoom(const GpuQuotaRecord& record, std::string_view name, const quota::Amounts& hard,
                size_t maxRecordBytes) {
  if (maxRecordBytes == 0) return std::numeric_limits<size_t>::max();
  GpuQuotaRecord without = record;
  without.usage = json();
  const size_t rest = EncodeGpuQuota(without, name, hard)
                          .dump(-1, ' ', false, json::error_handler_t::replace)
                          .size();
  const size_t frame = std::string_view(R"(,"usage":)").size();
  return rest + frame >= maxRecordBytes ? 0 : maxRecordBytes - rest - frame;
}

}  // namespace gpugate::cluster
