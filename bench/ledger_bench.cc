// The quota ledger's cost per admission: one Reserve and one Release of a 1-GPU pod.
//
//   BM_Reserve           memory only (no journal): the ledger itself, on an empty ledger and on
//                        one holding 10,000 limited namespaces and 100,000 charged pods. The two
//                        should cost about the same: Reserve touches one namespace's totals.
//                        (10,000 namespaces and no pods separates cache effects from pod count.)
//   BM_ReserveJournaled  the same with the file journal: two fdatasyncs per iteration.
#include <benchmark/benchmark.h>
#include <stdlib.h>

#include <filesystem>
#include <vector>

#include "quota/ledger.h"

namespace gpugate::quota {
namespace {

namespace fs = std::filesystem;

constexpr int kPodsPerRotation = 1024;  // distinct pods the timed loop cycles through

const Amounts& OneGpu() {
  static const Amounts amounts = {{"nvidia.com/gpu", kMilli}};
  return amounts;
}

std::string NamespaceName(int i) { return "ns-" + std::to_string(i); }

// `namespaces` namespaces (at least one), each limited to 1,000 GPUs, so the check always runs.
QuotaConfig Config(int namespaces) {
  QuotaConfig config;
  for (int i = 0; i < std::max(namespaces, 1); ++i) {
    config.limits[NamespaceName(i)] = {{"nvidia.com/gpu", 1000 * kMilli}};
  }
  return config;
}

// The charges of `pods` pods spread evenly over `namespaces` namespaces.
std::vector<JournalRecord> Prefill(int namespaces, int pods) {
  std::vector<JournalRecord> records;
  records.reserve(pods);
  for (int i = 0; i < pods; ++i) {
    records.push_back({JournalRecord::Type::kCharge, NamespaceName(i % namespaces),
                       "pod-" + std::to_string(i), "uid-" + std::to_string(i), OneGpu()});
  }
  return records;
}

// The pods the timed loop admits and deletes, scattered over the namespaces.
std::vector<PodRef> Rotation(int namespaces) {
  std::vector<PodRef> pods;
  for (int i = 0; i < kPodsPerRotation; ++i) {
    int ns = namespaces == 0 ? 0 : static_cast<int>((i * 7919LL) % namespaces);
    pods.push_back({NamespaceName(ns), "bench-" + std::to_string(i), "bench-uid"});
  }
  return pods;
}

void ReserveAndRelease(benchmark::State& state, Ledger& ledger, int namespaces) {
  std::vector<PodRef> pods = Rotation(namespaces);
  size_t i = 0;
  for (auto _ : state) {
    const PodRef& pod = pods[i++ % pods.size()];
    Result<ReserveResult> reserved = ledger.Reserve(pod, OneGpu(), false);
    Result<bool> released = ledger.Release(pod);
    if (!reserved || reserved->outcome != ReserveOutcome::kCharged || !released || !*released) {
      state.SkipWithError("reserve or release failed");
      break;
    }
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_Reserve(benchmark::State& state) {
  int namespaces = static_cast<int>(state.range(0)), pods = static_cast<int>(state.range(1));
  Ledger ledger(Config(namespaces), nullptr);
  for (const JournalRecord& r : Prefill(std::max(namespaces, 1), pods)) {
    (void)ledger.Reserve({r.ns, r.name, r.uid}, r.amounts, false);
  }
  ReserveAndRelease(state, ledger, namespaces);
}

// A fresh directory under the system temp dir, removed with everything in it.
struct TempDir {
  std::string path = (fs::temp_directory_path() / "gpugate-bench-XXXXXX").string();
  bool made = mkdtemp(path.data()) != nullptr;
  ~TempDir() {
    if (made) fs::remove_all(path);
  }
};

// A real file journal in a fresh temp directory; the prefill is written as one compacted
// snapshot and replayed by Open, as at start-up.
void BM_ReserveJournaled(benchmark::State& state) {
  int namespaces = static_cast<int>(state.range(0)), pods = static_cast<int>(state.range(1));
  TempDir dir;
  if (!dir.made) return state.SkipWithError("mkdtemp failed");
  std::string path = dir.path + "/ledger";
  {
    auto journal = OpenFileJournal(path);
    if (!journal || !(*journal)->Compact(Prefill(std::max(namespaces, 1), pods))) {
      return state.SkipWithError("cannot write the prefill");
    }
  }
  auto journal = OpenFileJournal(path);
  if (!journal) return state.SkipWithError(journal.error().message.c_str());
  Ledger ledger(Config(namespaces), std::move(*journal));
  if (!ledger.Open()) return state.SkipWithError("cannot open the ledger");
  ReserveAndRelease(state, ledger, namespaces);
}

BENCHMARK(BM_Reserve)
    ->ArgNames({"namespaces", "pods"})
    ->Args({0, 0})
    ->Args({10000, 0})
    ->Args({10000, 100000});
BENCHMARK(BM_ReserveJournaled)
    ->ArgNames({"namespaces", "pods"})
    ->Args({0, 0})
    ->Args({10000, 100000})
    ->UseRealTime();

}  // namespace
}  // namespace gpugate::quota
