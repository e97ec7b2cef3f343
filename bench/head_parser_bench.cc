// The request-head parser alone: what a review's head costs, and a head dribbled a byte at a time.
// Built twice (bench/CMakeLists.txt): gpugate_head_bench with gpugate's parser
// (webhook/transport/head_parser.cc) and, where libboost1.81-dev is installed,
// gpugate_head_bench_beast with Boost.Beast's behind the same interface
// (bench/load/beast/transport/head_parser.h), for bench/compare_micro.py to run side by side
// (docs/performance.md, "The request-head parser").
#include <benchmark/benchmark.h>

#include <string>

#include "transport/head_parser.h"

namespace gpugate::transport {
namespace {

// What the API server sends with a review (kube-apiserver 1.29, as fuzz/http_heads.txt has it).
const std::string kApiServerHead =
    "POST /validate?timeout=10s HTTP/1.1\r\nHost: gpugate.gpugate-system.svc:443\r\n"
    "User-Agent: kube-apiserver-admission\r\nContent-Length: 3245\r\n"
    "Accept: application/json, */*\r\nContent-Type: application/json\r\n"
    "Accept-Encoding: gzip\r\n\r\n";

// A head of about `bytes` bytes: the API server's, padded with headers of 1,200 bytes.
std::string PaddedHead(size_t bytes) {
  std::string head = kApiServerHead.substr(0, kApiServerHead.size() - 2);
  for (int i = 0; head.size() + 1220 < bytes; ++i) {
    head += "X-Pad-" + std::to_string(i) + ": " + std::string(1200, 'p') + "\r\n";
  }
  return head + "\r\n";
}

// The whole head in one Feed, then its fields viewed, as the event server does.
void ParseAtOnce(benchmark::State& state, const std::string& head) {
  HeadParser parser{HeadLimits{}};
  for (auto _ : state) {
    parser.Reset();
    if (parser.Feed(head) != HeadParser::State::kComplete) state.SkipWithError("not complete");
    benchmark::DoNotOptimize(parser.Head(head).headers.size());
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(head.size()));
}

// One Feed per byte, as for a peer sending one byte per TLS record.
void ParseDribbled(benchmark::State& state, const std::string& head) {
  HeadParser parser{HeadLimits{}};
  for (auto _ : state) {
    parser.Reset();
    for (size_t n = 1; n <= head.size(); ++n) parser.Feed(std::string_view(head).substr(0, n));
    if (parser.state() != HeadParser::State::kComplete) state.SkipWithError("not complete");
  }
  state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(head.size()));
}

void BM_ParseHead_ApiServer(benchmark::State& s) { ParseAtOnce(s, kApiServerHead); }
void BM_ParseHead_60k(benchmark::State& s) { ParseAtOnce(s, PaddedHead(60'000)); }
void BM_ParseHead_Dribbled_ApiServer(benchmark::State& s) { ParseDribbled(s, kApiServerHead); }
void BM_ParseHead_Dribbled_8k(benchmark::State& s) { ParseDribbled(s, PaddedHead(8'000)); }
BENCHMARK(BM_ParseHead_ApiServer);
BENCHMARK(BM_ParseHead_60k);
BENCHMARK(BM_ParseHead_Dribbled_ApiServer);
BENCHMARK(BM_ParseHead_Dribbled_8k);

}  // namespace
}  // namespace gpugate::transport

BENCHMARK_MAIN();
