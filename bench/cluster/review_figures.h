// The figures gpugate_cluster_review (review_bench.cc) reports for one case in one round, and
// how they are printed: a row per case and round, then each figure's median over the rounds
// with every round's figure beside it.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace gpugate::bench {

struct Figures {
  double requestsPerSecond = 0;
  double cpuMicrosPerRequest = 0;  // the replica's CPU time (all its threads) per request
  double handoffsPerRequest = 0;   // gpugate_http_blocking_handoffs_total per request
  double switchesPerRequest = 0;   // the replica's voluntary context switches per request
  double apiWritesPerRequest = 0;  // PUTs and POSTs the API server received per request
  double p50Micros = 0, p99Micros = 0;
  double otherPercent = 0;    // % of all cores other processes took during the case
  int wrongAnswers = 0;       // no answer, not 200, not allowed, or a patch where none belongs
  int connectionsOpened = 0;  // by the clients during the case (their TLS handshakes included)
};

// The value at quantile `q` (0..1) of `values`, nearest rank; 0 when empty.
double Percentile(std::vector<double> values, double q);

void PrintHeader();
void PrintRow(const std::string& round, const std::string& name, const Figures& f);
// A Markdown table: per case (in `order`), each figure's median over its rounds, in bold, and
// the rounds' figures in brackets.
void PrintMedians(const std::vector<std::string>& order,
                  const std::map<std::string, std::vector<Figures>>& byCase);

}  // namespace gpugate::bench
