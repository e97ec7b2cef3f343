// One group-commit batch (group_commit.h) applied to a namespace's GPUQuota record: pure, so the
// rules of a batch are tested without an API server.
#pragma once

#include <chrono>
#include <cstddef>
#include <span>
#include <vector>

#include "cluster/gpu_quota_record.h"
#include "cluster/group_commit.h"
#include "cluster/record_book.h"

namespace gpugate::cluster {

struct BatchContext {
  std::string_view name;      // the record's object name, for a record not written yet
  quota::Amounts hard;        // the namespace's limits
  size_t recordBytes = 0;     // the record's size as written now (RecordBytes)
  size_t maxRecordBytes = 0;  // no charge may take it past this; 0: no bound
  WallClock::time_point now;  // stamps new charges; ends the usage of released ones
  // The namespace's pods in the watch (their start and end edges), for the released charges'
  // usage; null: none shown.
  const PodMap* pods = nullptr;
  // null: no usage is kept (released charges are dropped unaccrued).
  const BookSettings* book = nullptr;
};

struct BatchEvaluation {
  GpuQuotaRecord next;                  // the record with the batch applied
  std::vector<LedgerOpResult> results;  // one per op, in order
  bool changed = false;                 // `next` differs from the record: it must be written
  // An answer that only a fresh read may give when nothing is written: a refusal, "already
  // charged" or a dry run's answer. (When something is written, the guarded write's success
  // proves the record was the latest version, and with it every answer checked against it.)
  bool needsFreshRead = false;
  // Usage the write leaves unrecorded (record_book.h's AccrueDropped), for the log.
  std::vector<std::string> problems;
};

// Applies `ops` in order, each against the record as the ones before it left it: a charge of a
// pod already held (same name and uid) is kAlreadyCharged; one that would pass a limit in `hard`
// is kExceeded, with Kubernetes' message, and changes nothing (unless the op does not enforce
// limits: then it is charged, kChargedOverLimit with the same message); one that would take the
// record past maxRecordBytes (as EncodeGpuQuota writes it, exactly) is kRecordFull, saying so, and
// changes nothing; a dry run is checked,
// never added; a release removes every charge under the pod's name, and the batch's write
// accrues the usage of every charge it removed to the record's book (record_book.h), within the
// room the rest of the record leaves under maxRecordBytes: in the write that removes them, so
// exactly once.
BatchEvaluation EvaluateBatch(const GpuQuotaRecord& record, std::span<const LedgerOp* const> ops,
                              const BatchContext& context);

// The size of `record` as EncodeGpuQuota writes it, in bytes.
size_t RecordBytes(const GpuQuotaRecord& record, std::string_view name, const quota::Amounts& hard);

// kRecordFull's message, for the charge path and the reconciler's report.
std::string RecordFullMessage(std::string_view ns, size_t charges, size_t recordBytes,
                              size_t maxRecordBytes);

}  // namespace gpugate::cluster
