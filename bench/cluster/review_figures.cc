#include "cluster/review_figures.h"

#include <algorithm>
#include <cstdio>
#include <string>

namespace gpugate::bench {
namespace {

// "**median** [r1 r2 r3]" of one figure over the rounds, with `decimals` places.
std::string MedianAndRounds(const std::vector<Figures>& rounds, double (*figure)(const Figures&),
                            int decimals) {
  std::vector<double> values;
  for (const Figures& f : rounds) values.push_back(figure(f));
  auto text = [decimals](double v) {
    char buffer[32];
    snprintf(buffer, sizeof buffer, "%.*f", decimals, v);
    return std::string(buffer);
  };
  // Appended piece by piece: GCC 12 warns, wrongly, of an overlap in "literal" + string.
  std::string out = "**";
  out += text(Percentile(values, 0.5));
  out += "** [";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i) out += ' ';
    out += text(values[i]);
  }
  out += ']';
  return out;
}

}  // namespace

double Percentile(std::vector<double> values, double q) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  size_t i = std::min(values.size() - 1, static_cast<size_t>(q * (values.size() - 1) + 0.5));
  return values[i];
}

void PrintHeader() {
  printf("%-8s %-18s %9s %10s %10s %10s %10s %9s %9s %6s %6s %6s\n", "round", "case", "req/s",
         "cpu_us/req", "handoff/r", "vcsw/req", "writes/req", "p50_us", "p99_us", "oth%", "wrong",
         "conns");
}

void PrintRow(const std::string& round, const std::string& name, const Figures& f) {
  printf("%-8s %-18s %9.0f %10.1f %10.3f %10.3f %10.3f %9.0f %9.0f %6.1f %6d %6d\n", round.c_str(),
         name.c_str(), f.requestsPerSecond, f.cpuMicrosPerRequest, f.handoffsPerRequest,
         f.switchesPerRequest, f.apiWritesPerRequest, f.p50Micros, f.p99Micros, f.otherPercent,
         f.wrongAnswers, f.connectionsOpened);
  fflush(stdout);
}

void PrintMedians(const std::vector<std::string>& order,
                  const std::map<std::string, std::vector<Figures>>& byCase) {
  struct Column {
    const char* header;
    double (*figure)(const Figures&);
    int decimals;
  };
  static const Column kColumns[] = {
      {"req/s", [](const Figures& f) { return f.requestsPerSecond; }, 0},
      {"CPU µs/req", [](const Figures& f) { return f.cpuMicrosPerRequest; }, 1},
      {"hand-offs/req", [](const Figures& f) { return f.handoffsPerRequest; }, 3},
      {"voluntary switches/req", [](const Figures& f) { return f.switchesPerRequest; }, 2},
      {"API writes/req", [](const Figures& f) { return f.apiWritesPerRequest; }, 3},
      {"p50 µs", [](const Figures& f) { return f.p50Micros; }, 0},
      {"p99 µs", [](const Figures& f) { return f.p99Micros; }, 0},
      {"other load %", [](const Figures& f) { return f.otherPercent; }, 0},
  };
  std::string header = "\n| case |", rule = "| --- |";
  for (const Column& c : kColumns) header += std::string(" ") + c.header + " |", rule += " ---: |";
  printf("%s\n%s\n", header.c_str(), rule.c_str());
  for (const std::string& name : order) {
    std::string row = "| " + name + " |";
    for (const Column& c : kColumns) {
      row += ' ';
      row += MedianAndRounds(byCase.at(name), c.figure, c.decimals);
      row += " |";
    }
    printf("%s\n", row.c_str());
  }
}

}  // namespace gpugate::bench
