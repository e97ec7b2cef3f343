#include "serving/metrics.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace gpugate::serving {
namespace {

constexpr char kHeaders[] =
    "# HELP gpugate_http_requests_total HTTP requests answered, by route and status code.\n"
    "# TYPE gpugate_http_requests_total counter\n"
    "# HELP gpugate_admission_decisions_total Admission decisions, by route, decision and "
    "reason.\n"
    "# TYPE gpugate_admission_decisions_total counter\n"
    "# HELP gpugate_policy_violations_total Reviews in which a rule found something, by rule and "
    "by its mode there (deny refused them, warn and audit admitted them).\n"
    "# TYPE gpugate_policy_violations_total counter\n"
    "# HELP gpugate_admission_duration_seconds Time to decode, decide and encode a review.\n"
    "# TYPE gpugate_admission_duration_seconds histogram\n";

// The sample lines (no comments) whose metric name starts with `prefix`.
std::vector<std::string> Samples(const std::string& text, const std::string& prefix) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with(prefix)) out.push_back(line);
  }
  return out;
}

TEST(Metrics, NothingCountedRendersOnlyTheFamilies) {
  Metrics m;
  EXPECT_EQ(m.Render(), kHeaders);
}

TEST(Metrics, Counters) {
  Metrics m;
  m.CountRequest("validate", 200);
  m.CountRequest("validate", 200);
  m.CountRequest("validate", 415);
  m.CountRequest("mutate", 400);
  m.CountDecision("validate", "denied", "whole-units");
  m.CountDecision("validate", "allowed", "valid");
  m.CountDecision("validate", "allowed", "valid");
  m.CountDecision("mutate", "patched", "patched");
  // Sorted by labels, so the output never changes order between scrapes.
  EXPECT_EQ(Samples(m.Render(), "gpugate_http_requests_total"),
            (std::vector<std::string>{
                R"(gpugate_http_requests_total{route="mutate",code="400"} 1)",
                R"(gpugate_http_requests_total{route="validate",code="200"} 2)",
                R"(gpugate_http_requests_total{route="validate",code="415"} 1)",
            }));
  EXPECT_EQ(
      Samples(m.Render(), "gpugate_admission_decisions_total"),
      (std::vector<std::string>{
          R"(gpugate_admission_decisions_total{route="mutate",decision="patched",reason="patched"} 1)",
          R"(gpugate_admission_decisions_total{route="validate",decision="allowed",reason="valid"} 2)",
          R"(gpugate_admission_decisions_total{route="validate",decision="denied",reason="whole-units"} 1)",
      }));
  m.CountViolation("whole-units", "warn");
  m.CountViolation("quota", "audit");
  m.CountViolation("whole-units", "warn");
  m.CountViolation("whole-units", "deny");
  EXPECT_EQ(Samples(m.Render(), "gpugate_policy_violations_total"),
            (std::vector<std::string>{
                R"(gpugate_policy_violations_total{rule="quota",mode="audit"} 1)",
                R"(gpugate_policy_violations_total{rule="whole-units",mode="deny"} 1)",
                R"(gpugate_policy_violations_total{rule="whole-units",mode="warn"} 2)",
            }));
}

// A decided review counted under one lock renders exactly as its four calls made one by one.
TEST(Metrics, AReviewCountsWhatItsFourCallsCount) {
  struct Violated {
    std::string rule, mode;
  };
  const std::vector<Violated> violated = {{"whole-units", "warn"}, {"quota", "audit"}};
  Metrics together, apart;
  together.CountReview("validate", "allowed", "valid", violated, 0.0002);
  together.CountReview("mutate", "patched", "patched", std::vector<Violated>{}, 0.002);
  apart.CountRequest("validate", 200);
  apart.CountDecision("validate", "allowed", "valid");
  for (const Violated& v : violated) apart.CountViolation(v.rule, v.mode);
  apart.ObserveLatency("validate", 0.0002);
  apart.CountRequest("mutate", 200);
  apart.CountDecision("mutate", "patched", "patched");
  apart.ObserveLatency("mutate", 0.002);
  EXPECT_EQ(together.Render(), apart.Render());
  EXPECT_EQ(Samples(together.Render(), "gpugate_policy_violations_total"),
            (std::vector<std::string>{
                R"(gpugate_policy_violations_total{rule="quota",mode="audit"} 1)",
                R"(gpugate_policy_violations_total{rule="whole-units",mode="warn"} 1)",
            }));
  EXPECT_EQ(Samples(together.Render(), "gpugate_http_requests_total"),
            (std::vector<std::string>{
                R"(gpugate_http_requests_total{route="mutate",code="200"} 1)",
                R"(gpugate_http_requests_total{route="validate",code="200"} 1)",
            }));
}

TEST(Metrics, HistogramBucketsAreCumulative) {
  Metrics m;
  m.ObserveLatency("validate", 0.00003);  // first bucket
  m.ObserveLatency("validate", 0.0001);   // exactly on a bound: that bucket (le is <=)
  m.ObserveLatency("validate", 0.002);    // le 0.0025
  m.ObserveLatency("validate", 2.5);      // above every bound: +Inf only
  m.ObserveLatency("mutate", 1.0);        // the last bound
  EXPECT_EQ(Samples(m.Render(), "gpugate_admission_duration_seconds"),
            (std::vector<std::string>{
                R"(gpugate_admission_duration_seconds_bucket{route="mutate",le="5e-05"} 0)",
                R"(gpugate_admission_duration_seconds_bucket{route="mutate",le="0.0001"} 0)",
                R"(gpugate_admission_duration_seconds_bucket{route="mutate",le="0.00025"} 0)",
                R"(gpugate_admission_duration_seconds_bucket{route="mutate",le="0.0005"} 0)",
                R"(gpugate_admission_duration_seconds_bucket{route="mutate",le="0.001"} 0)",
                R"(gpugate_admission_duration_seconds_bucket{route="mutate",le="0.0025"} 0)",
                R"(gpugate_admission_duration_seconds_bucket{route="mutate",le="0.005"} 0)",
                R"(gpugate_admission_duration_seconds_bucket{route="mutate",le="0.01"} 0)",
                R"(gpugate_admission_duration_seconds_bucket{route="mutate",le="0.025"} 0)",
                R"(gpugate_admission_duration_seconds_bucket{route="mutate",le="0.05"} 0)",
                R"(gpugate_admission_duration_seconds_bucket{route="mutate",le="0.1"} 0)",
                R"(gpugate_admission_duration_seconds_bucket{route="mutate",le="0.25"} 0)",
                R"(gpugate_admission_duration_seconds_bucket{route="mutate",le="0.5"} 0)",
                R"(gpugate_admission_duration_seconds_bucket{route="mutate",le="1"} 1)",
                R"(gpugate_admission_duration_seconds_bucket{route="mutate",le="+Inf"} 1)",
                R"(gpugate_admission_duration_seconds_sum{route="mutate"} 1)",
                R"(gpugate_admission_duration_seconds_count{route="mutate"} 1)",
                R"(gpugate_admission_duration_seconds_bucket{route="validate",le="5e-05"} 1)",
                R"(gpugate_admission_duration_seconds_bucket{route="validate",le="0.0001"} 2)",
                R"(gpugate_admission_duration_seconds_bucket{route="validate",le="0.00025"} 2)",
                R"(gpugate_admission_duration_seconds_bucket{route="validate",le="0.0005"} 2)",
                R"(gpugate_admission_duration_seconds_bucket{route="validate",le="0.001"} 2)",
                R"(gpugate_admission_duration_seconds_bucket{route="validate",le="0.0025"} 3)",
                R"(gpugate_admission_duration_seconds_bucket{route="validate",le="0.005"} 3)",
                R"(gpugate_admission_duration_seconds_bucket{route="validate",le="0.01"} 3)",
                R"(gpugate_admission_duration_seconds_bucket{route="validate",le="0.025"} 3)",
                R"(gpugate_admission_duration_seconds_bucket{route="validate",le="0.05"} 3)",
                R"(gpugate_admission_duration_seconds_bucket{route="validate",le="0.1"} 3)",
                R"(gpugate_admission_duration_seconds_bucket{route="validate",le="0.25"} 3)",
                R"(gpugate_admission_duration_seconds_bucket{route="validate",le="0.5"} 3)",
                R"(gpugate_admission_duration_seconds_bucket{route="validate",le="1"} 3)",
                R"(gpugate_admission_duration_seconds_bucket{route="validate",le="+Inf"} 4)",
                R"(gpugate_admission_duration_seconds_sum{route="validate"} 2.50213)",
                R"(gpugate_admission_duration_seconds_count{route="validate"} 4)",
            }));
}

TEST(Metrics, InfBucketEqualsCount) {
  Metrics m;
  for (int i = 0; i < 1000; ++i) m.ObserveLatency("validate", i * 0.0013);
  std::vector<std::string> lines = Samples(m.Render(), "gpugate_admission_duration_seconds");
  ASSERT_EQ(lines.size(), Metrics::kBuckets.size() + 3);
  EXPECT_EQ(lines[Metrics::kBuckets.size()],
            R"(gpugate_admission_duration_seconds_bucket{route="validate",le="+Inf"} 1000)");
  EXPECT_EQ(lines.back(), R"(gpugate_admission_duration_seconds_count{route="validate"} 1000)");
  // 0 .. 1.2987 s in steps of 1.3 ms: 770 observations are at or below 1 s.
  EXPECT_EQ(lines[Metrics::kBuckets.size() - 1],
            R"(gpugate_admission_duration_seconds_bucket{route="validate",le="1"} 770)");
}

TEST(Metrics, LabelValuesAreEscaped) {
  struct Case {
    std::string reason;
    std::string rendered;
  } cases[] = {
      {"plain", "plain"},
      {R"(say "no")", R"(say \"no\")"},
      {R"(C:\path)", R"(C:\\path)"},
      {"two\nlines", R"(two\nlines)"},
      {"\\\"\n", R"(\\\"\n)"},
  };
  for (const auto& c : cases) {
    Metrics m;
    m.CountDecision("validate", "denied", c.reason);
    m.CountRequest(c.reason, 200);
    m.ObserveLatency(c.reason, 0.5);
    std::string text = m.Render();
    EXPECT_EQ(
        Samples(text, "gpugate_admission_decisions_total"),
        std::vector<std::string>{
            R"(gpugate_admission_decisions_total{route="validate",decision="denied",reason=")" +
            c.rendered + R"("} 1)"})
        << c.reason;
    EXPECT_EQ(Samples(text, "gpugate_http_requests_total"),
              std::vector<std::string>{R"(gpugate_http_requests_total{route=")" + c.rendered +
                                       R"(",code="200"} 1)"})
        << c.reason;
    EXPECT_EQ(Samples(text, "gpugate_admission_duration_seconds_count"),
              std::vector<std::string>{R"(gpugate_admission_duration_seconds_count{route=")" +
                                       c.rendered + R"("} 1)"})
        << c.reason;
  }
}

TEST(Metrics, CountsFromManyThreads) {
  Metrics m;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&m] {
      for (int i = 0; i < 1000; ++i) {
        m.CountRequest("validate", 200);
        m.ObserveLatency("validate", 0.0001);
      }
    });
  }
  for (auto& t : threads) t.join();
  std::string text = m.Render();
  EXPECT_EQ(
      Samples(text, "gpugate_http_requests_total"),
      std::vector<std::string>{R"(gpugate_http_requests_total{route="validate",code="200"} 4000)"});
  EXPECT_EQ(Samples(text, "gpugate_admission_duration_seconds_count"),
            std::vector<std::string>{
                R"(gpugate_admission_duration_seconds_count{route="validate"} 4000)"});
}

}  // namespace
}  // namespace gpugate::serving
