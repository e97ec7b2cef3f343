// What a namespace's GPUQuota costs as it grows (docs/cluster.md, "How many GPU pods one namespace
// can hold"): every charge and release rewrites the whole object.
//
//   BM_GpuQuotaEncode/N  the object with N charges built and serialised, as each write sends it;
//                        counters: its size in bytes, and the bytes one charge adds
//   BM_GpuQuotaDecode/N  the same object parsed and read back, as each write's answer and each
//                        watch event are
//   BM_GpuQuotaWrite/N   one charge and its release through the cluster ledger against the
//                        stand-in API server (real TLS on loopback) holding N charges: two
//                        guarded writes per iteration, each with encode, PUT, store and decode
//
// The charges are shaped as a Deployment's pods are: a 25-character name, a uid, and both
// nvidia.com/gpu and gpu-equivalents.
#include <benchmark/benchmark.h>
#include <stdlib.h>

#include <filesystem>

#include "certs/certificates.h"
#include "cluster/charge_batch.h"
#include "cluster/cluster_ledger.h"
#include "cluster/gpu_quota_record.h"
#include "cluster/kube_client.h"
#include "standin/standin.h"

namespace gpugate::cluster {
namespace {

using nlohmann::json;

const WallClock::time_point kAdmitted = WallClock::from_time_t(1764072000);

std::string PodName(int i) {  // "llm-serve-7f9c6d5b8-00042": 25 characters, as a Deployment's
  char name[32];
  snprintf(name, sizeof name, "llm-serve-7f9c6d5b8-%05d", i);
  return name;
}

std::string Uid(int i) {
  char uid[40];
  snprintf(uid, sizeof uid, "6f1c2a4e-0d8b-4d47-9a55-%012d", i);
  return uid;
}

quota::Amounts OneGpu() {
  return {{"nvidia.com/gpu", quota::kMilli}, {"gpu-equivalents", quota::kMilli}};
}

GpuQuotaRecord RecordWith(int charges) {
  GpuQuotaRecord record{.ns = "team-a"};
  record.object = {{"apiVersion", "gpugate.io/v1alpha1"},
                   {"kind", "GPUQuota"},
                   {"metadata",
                    {{"name", "gpugate"},
                     {"namespace", "team-a"},
                     {"uid", Uid(999999)},
                     {"resourceVersion", "48213"},
                     {"creationTimestamp", "2025-11-25T12:00:00Z"}}}};
  for (int i = 0; i < charges; ++i) {
    record.charges[PodName(i)].push_back({Uid(i), kAdmitted, OneGpu()});
  }
  return record;
}

const quota::Amounts kHard = {{"nvidia.com/gpu", 100000 * quota::kMilli}};

void BM_GpuQuotaEncode(benchmark::State& state) {
  GpuQuotaRecord record = RecordWith(static_cast<int>(state.range(0)));
  size_t bytes = 0;
  for (auto _ : state) {
    std::string body = EncodeGpuQuota(record, "gpugate", kHard).dump();
    bytes = body.size();
    benchmark::DoNotOptimize(body);
  }
  state.counters["bytes"] = static_cast<double>(bytes);
  size_t empty = RecordBytes(RecordWith(0), "gpugate", kHard);
  state.counters["bytes_per_charge"] =
      state.range(0) ? static_cast<double>(bytes - empty) / static_cast<double>(state.range(0)) : 0;
}
BENCHMARK(BM_GpuQuotaEncode)->Arg(100)->Arg(1000)->Arg(5000)->Unit(benchmark::kMicrosecond);

void BM_GpuQuotaDecode(benchmark::State& state) {
  std::string body =
      EncodeGpuQuota(RecordWith(static_cast<int>(state.range(0))), "gpugate", kHard).dump();
  for (auto _ : state) {
    GpuQuotaRecord record = DecodeGpuQuota(json::parse(body));
    benchmark::DoNotOptimize(record);
  }
  state.counters["bytes"] = static_cast<double>(body.size());
}
BENCHMARK(BM_GpuQuotaDecode)->Arg(100)->Arg(1000)->Arg(5000)->Unit(benchmark::kMicrosecond);

// A stand-in API server with its own certificates, for the write benchmark.
struct ApiServer {
  ApiServer() {
    char pattern[] = "/tmp/gpugate-bench-api-XXXXXX";
    dir = mkdtemp(pattern);
    auto bundle = certs::IssueCertificates({.extraHosts = {"127.0.0.1"}});
    if (!bundle || !certs::WriteBundle(*bundle, dir)) abort();
    caPem = bundle->caCertPem;
    server = std::make_unique<testing::StandInApiServer>(testing::StandInApiServer::Options{
        .certFile = dir + "/tls.crt", .keyFile = dir + "/tls.key"});
    port = server->Start();
  }
  ~ApiServer() {
    server.reset();
    std::filesystem::remove_all(dir);
  }
  std::string dir, caPem;
  std::unique_ptr<testing::StandInApiServer> server;
  int port = -1;
};

void BM_GpuQuotaWrite(benchmark::State& state) {
  ApiServer api;
  const int charges = static_cast<int>(state.range(0));
  GpuQuotaRecord record = RecordWith(charges);
  record.object["metadata"].erase("resourceVersion");
  record.object["metadata"].erase("uid");
  api.server->Create(GpuQuotaCollectionPath("team-a"), EncodeGpuQuota(record, "gpugate", {}));
  KubeClient client(KubeConfig{
      .host = "127.0.0.1", .port = api.port, .caPem = api.caPem, .token = "stand-in-token"});
  ClusterOptions options;
  options.reservationGrace = std::chrono::hours(1);  // the record's charges have no pods
  ClusterLedger ledger(client, {}, {}, options);
  ledger.Start();
  while (!ledger.Ready()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  const quota::PodRef pod{"team-a", "bench-pod", "bench-uid"};
  for (auto _ : state) {
    auto charged = ledger.Reserve(pod, OneGpu(), false);
    auto released = ledger.Release(pod);
    if (!charged || charged->outcome != quota::ReserveOutcome::kCharged || !released ||
        !*released) {
      state.SkipWithError("a charge or release failed");
      break;
    }
  }
  state.counters["writes"] = benchmark::Counter(2.0 * static_cast<double>(state.iterations()),
                                                benchmark::Counter::kIsRate);
  state.counters["bytes"] = static_cast<double>(RecordBytes(record, "gpugate", {}));
  ledger.Stop();
}
BENCHMARK(BM_GpuQuotaWrite)
    ->Arg(100)
    ->Arg(1000)
    ->Arg(5000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
}  // namespace gpugate::cluster
