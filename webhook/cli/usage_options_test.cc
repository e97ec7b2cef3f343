#include "cli/usage_options.h"

#include <gtest/gtest.h>

namespace gpugate::cli {
namespace {

// What a command line asks for, as one line: "server=https://h:443 period=2026-11 by=day
// ns=a,b -o csv chart=u.svg@gpu-equivalents", or "error: ...".
std::string Asked(const std::vector<std::string>& args) {
  Result<UsageOptions> o = ParseUsageArgs(args);
  if (!o) return "error: " + o.error().message;
  if (o->help) return "help";
  std::string out =
      o->kubeconfig ? "kubeconfig=" + *o->kubeconfig + (o->context.empty() ? "" : "@" + o->context)
                    : "server=" + o->access.server.host + ":" +
                          std::to_string(o->access.server.port) + o->access.basePath;
  const usage::ReportParams& p = o->params;
  for (const auto& [name, value] :
       {std::pair{"period", p.period}, std::pair{"since", p.since}, std::pair{"until", p.until},
        std::pair{"by", p.by}, std::pair{"ns", p.ns}}) {
    if (value) out += std::string(" ") + name + "=" + *value;
  }
  out += " -o " + o->format;
  if (o->chart) out += " chart=" + *o->chart + "@" + o->chartResource.value_or("default");
  return out;
}

TEST(UsageOptions, FlagsAsTheCommandReadsThem) {
  const struct {
    std::vector<std::string> args;
    std::string want;
  } kCases[] = {
      {{}, "server=127.0.0.1:8443 -o table"},
      {{"--period", "2026-11", "--by", "day", "-ojson"},
       "server=127.0.0.1:8443 period=2026-11 by=day -o json"},
      {{"--since=2026-11-03", "--until", "2026-11-09", "-o", "csv", "--server",
        "https://gpugate.example/prefix/"},
       "server=gpugate.example:443/prefix since=2026-11-03 until=2026-11-09 -o csv"},
      // -n repeats, takes comma lists, or both: one comma list for GET /usage.
      {{"-n", "team-a", "--namespace=team-b,team-c", "-n", ""},
       "server=127.0.0.1:8443 ns=team-a,team-b,team-c -o table"},
      {{"--kubeconfig", "kc", "--context", "prod", "--by", "model"},
       "kubeconfig=kc@prod by=model -o table"},
      {{"--chart", "nov.svg", "--period", "2026-11"},
       "server=127.0.0.1:8443 period=2026-11 -o table chart=nov.svg@default"},
      {{"--chart", "nov.svg", "--chart-resource", "gpu-equivalents", "--by", "namespace"},
       "server=127.0.0.1:8443 by=namespace -o table chart=nov.svg@gpu-equivalents"},
      {{"--help", "--bogus-later-is-still-parsed"},
       "error: unknown flag --bogus-later-is-still-parsed"},
      {{"-h"}, "help"},
      // Refusals, each naming the flag.
      {{"november"}, "error: unexpected argument \"november\""},
      {{"--period", "2026-13"}, "error: --period: expected a month such as 2026-11"},
      {{"--period", "2026-11", "--since", "2026-11-01", "--until", "2026-11-02"},
       "error: --period: give a month or since and until, not both"},
      {{"--since", "2026-11-01"}, "error: --until: missing (since needs it)"},
      {{"--since", "2026-11-09", "--until", "2026-11-03"},
       "error: --since/until: until 2026-11-03 is before since 2026-11-09"},
      {{"--by", "user"}, "error: --by: must be namespace, model, resource or day"},
      {{"-o", "yaml"}, "error: --output must be table, json or csv, got \"yaml\""},
      {{"-o", "svg"}, "error: --output must be table, json or csv, got \"svg\""},
      {{"--chart-resource", "nvidia.com/gpu"}, "error: --chart-resource needs --chart"},
      {{"--chart", ""}, "error: --chart needs a file name"},
      {{"--chart", "y.svg", "--since", "2026-01-01", "--until", "2026-03-31"},
       "error: --chart covers at most 62 days; ask for a shorter span"},
      {{"--kubeconfig", "kc", "--server", "https://x"},
       "error: --kubeconfig reads the cluster directly and does not combine with --server"},
      {{"--context", "prod"}, "error: --context needs --kubeconfig"},
      {{"--server", "http://x"}, "error: --server must be an https:// URL, got \"http://x\""},
      {{"--cert", "c.crt"}, "error: --cert needs --key"},
  };
  for (const auto& c : kCases) {
    EXPECT_EQ(Asked(c.args), c.want) << ::testing::PrintToString(c.args);
  }
}

}  // namespace
}  // namespace gpugate::cli
