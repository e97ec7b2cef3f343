// Test support shared by the ledger tests (local and cluster): accounting results and usage
// rendered as short strings, so a test compares what a user would read. Header-only; tests only.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "quota/accounting.h"
#include "quota/amounts.h"
#include "quota/journal.h"

namespace gpugate::quota::testutil {

// "team-a{gpu-equivalents=0/6,nvidia.com/gpu=1/4} team-c{nvidia.com/gpu=2}": used/hard, or used
// alone where no limit is set.
inline std::string RenderUsage(const Accounting& accounting, std::string_view onlyNs = {}) {
  std::string out;
  for (const NamespaceUsage& ns : accounting.Usage(onlyNs)) {
    if (!out.empty()) out += ' ';
    out += ns.ns + "{";
    bool first = true;
    for (const auto& [resource, usage] : ns.resources) {
      out += (first ? "" : ",") + resource + "=" + FormatMilli(usage.used);
      if (usage.hard) out += "/" + FormatMilli(*usage.hard);
      first = false;
    }
    out += "}";
  }
  return out;
}

// "charged", "already charged", "admitted uncharged", the denial message, "charged over the limit:
// " and the message, or "error: ...".
inline std::string Outcome(const Result<ReserveResult>& r) {
  if (!r) return "error: " + r.error().message;
  switch (r->outcome) {
    case ReserveOutcome::kCharged:
      return "charged";
    case ReserveOutcome::kChargedOverLimit:
      return "charged over the limit: " + r->message;
    case ReserveOutcome::kAlreadyCharged:
      return "already charged";
    case ReserveOutcome::kAdmittedUncharged:
      return "admitted uncharged";
    case ReserveOutcome::kExceeded:
    case ReserveOutcome::kRecordFull:
      return r->message;
  }
  return "?";
}

// "released", "not released", or "error: ...".
inline std::string Outcome(const Result<bool>& r) {
  if (!r) return "error: " + r.error().message;
  return *r ? "released" : "not released";
}

// What a ScriptedJournal replays, what it was asked to do, and how it answers.
struct JournalScript {
  std::vector<JournalRecord> replay;
  std::vector<JournalRecord> appended;
  std::vector<std::vector<JournalRecord>> compactions;
  bool failAppends = false, wantCompaction = false, failCompaction = false;
};

// The injected environment for tests of what the ledger does with its journal.
class ScriptedJournal : public Journal {
 public:
  explicit ScriptedJournal(JournalScript* script) : script_(script) {}
  Status Replay(const std::function<void(const JournalRecord&)>& apply) override {
    for (const JournalRecord& r : script_->replay) apply(r);
    return {};
  }
  Status Append(const JournalRecord& record) override {
    if (script_->failAppends) return Fail("disk full");
    script_->appended.push_back(record);
    return {};
  }
  Status Compact(const std::vector<JournalRecord>& live) override {
    script_->compactions.push_back(live);
    return script_->failCompaction ? Fail("disk full") : Status{};
  }
  bool ShouldCompact(size_t) const override { return script_->wantCompaction; }

 private:
  JournalScript* script_;
};

}  // namespace gpugate::quota::testutil
