// The ledger's durable form: an append-only file of checksummed records, fsynced on every append,
// compacted into a snapshot of live charges when it grows.
//
// Record framing: [u32 payload length][u32 CRC-32 of payload][payload], little-endian. A record
// whose length runs past the end of the file, or whose checksum does not match, ends the log:
// it is the torn tail of a write interrupted by a crash, and Replay truncates the file there.
// So does an intact record whose payload does not decode; one from a newer format version fails
// Replay instead, so a downgrade never silently drops state.
//
// Payload: u8 version, u8 type, then ns, name and uid as u32-length-prefixed bytes, then
//   type 0 (charge), 1 (release), format version 1: u32 count, count x (resource name,
//     i64 milli-units); a release has count 0;
//   type 2 (release at: the pod is being deleted), format version 2: i64 milliseconds since the
//     Unix epoch at which the charge stops counting;
//   type 3 (start: the pod started holding its devices), format version 3: i64 milliseconds
//     since the Unix epoch (status.startTime);
//   type 1 (release) with format version 3: i64 milliseconds since the Unix epoch at which the
//     charges ended, so a replay accrues their usage to the same second;
//   type 4 (usage book), format version 3: empty ns, name and uid, then the usage book's stored
//     form (usage/book_codec.h) as u32-length-prefixed bytes; the first record of a compacted
//     journal whose ledger keeps usage.
// Each record is written in the oldest version that can hold it (charges and untimed releases
// as version 1), so a journal that never saw a pod being deleted or started stays readable by
// a gpugate that predates versions 2 and 3; one that did makes such a gpugate refuse to start
// rather than drop the record.
//
// Thread-safety: none; the ledger calls a journal under its own mutex. The file journal holds an
// exclusive flock on its file, so a second journal (in any process) on the same path fails to open.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"
#include "common/rfc3339.h"
#include "quota/amounts.h"

namespace gpugate::quota {

struct JournalRecord {
  // kReleaseAt: every charge under ns/name stops counting at `releaseAt` (or an earlier time
  // already recorded); see quota/ledger.h. kStart: the charge of uid (every unstarted one under
  // ns/name when none has it) started at `at`. kBook: the usage book as of a compaction.
  enum class Type { kCharge, kRelease, kReleaseAt, kStart, kBook };
  Type type = Type::kCharge;
  std::string ns, name, uid;
  Amounts amounts;                    // kCharge only
  WallClock::time_point releaseAt{};  // kReleaseAt only; kept to the millisecond
  // kStart: when the pod started; kRelease: when the charges ended, or nullopt for a release
  // written before format 3 (its charges never started). Kept to the millisecond.
  std::optional<WallClock::time_point> at;
  std::string book;  // kBook only: usage/book_codec.h's stored form

  friend bool operator==(const JournalRecord&, const JournalRecord&) = default;
};

class Journal {
 public:
  virtual ~Journal() = default;
  // Reads every intact record in order, truncating a torn tail. Called once, before any Append.
  virtual Status Replay(const std::function<void(const JournalRecord&)>& apply) = 0;
  // Appends and fsyncs. When it returns success the record survives a crash.
  virtual Status Append(const JournalRecord& record) = 0;
  // Replaces the whole file with `live` (the kBook, then one kCharge per live charge, each
  // followed by its kStart and kReleaseAt when it has them), atomically: write a
  // temp file, fsync, rename, fsync the directory. Called by the ledger when
  // ShouldCompact() says so.
  virtual Status Compact(const std::vector<JournalRecord>& live) = 0;
  // True when the file holds many more records than `liveRecords` (so compaction pays).
  virtual bool ShouldCompact(size_t liveRecords) const = 0;
};

// How the file journal meets the disk. gpugate always syncs: an append is on disk when it
// returns, a compaction is atomic across a crash. A test of framing and replay, which reads the
// file back without a crash in between, may skip the syncs: on a real disk each costs
// milliseconds, and such a test makes hundreds.
struct JournalOptions {
  bool sync = true;
};

// The journal at `path` (created if missing, with its directory).
Result<std::unique_ptr<Journal>> OpenFileJournal(const std::string& path,
                                                 JournalOptions options = {});

// One framed record, byte for byte as Append writes it; exposed for tests that corrupt files.
std::string EncodeRecord(const JournalRecord& record);

}  // namespace gpugate::quota
