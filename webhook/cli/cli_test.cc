// The command line as a user meets it: exit codes and what lands on stdout and stderr.
#include "cli/cli.h"

#include <gtest/gtest.h>

#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "certs/certificates.h"
#include "config/config.h"

namespace gpugate::cli {
namespace {

struct Ran {
  int code = -1;
  std::string out, err;
};

// Runs the command line with std::cout and std::cerr captured. Only for arguments that return
// before a command does its work (help, usage errors).
Ran RunCli(std::string_view program, const std::vector<std::string>& args) {
  std::ostringstream out, err;
  std::streambuf* realOut = std::cout.rdbuf(out.rdbuf());
  std::streambuf* realErr = std::cerr.rdbuf(err.rdbuf());
  Ran ran;
  ran.code = Run(program, args);
  std::cout.rdbuf(realOut);
  std::cerr.rdbuf(realErr);
  ran.out = out.str();
  ran.err = err.str();
  return ran;
}

// What the help says about `label` ("--config FILE"): the rest of the line that starts with it.
std::string FlagDescription(const std::string& help, const std::string& label) {
  const std::string start = "\n  " + label + " ";
  const size_t at = help.find(start);
  if (at == std::string::npos) return "";
  const size_t from = help.find_first_not_of(' ', at + start.size());
  return help.substr(from, help.find('\n', from) - from);
}

struct HelpCase {
  std::string program;
  std::vector<std::string> args;  // before --help or -h
  std::string usage;              // how the help starts
  std::vector<std::string> flags;
};

const HelpCase kHelpCases[] = {
    {"gpugate",
     {"serve"},
     "Usage: gpugate serve [--config FILE] [--listen HOST:PORT]",
     {"--config FILE", "--listen HOST:PORT", "--tls-cert FILE", "--tls-key FILE",
      "--tls-client-ca FILE", "--kubeconfig FILE", "--shutdown-delay SECONDS", "-h, --help"}},
    {"gpugate",
     {"certs"},
     "Usage: gpugate certs --out DIR [--service NAME]",
     {"--out DIR", "--service NAME", "--namespace NS", "--days N", "--host H", "--client NAME",
      "-h, --help"}},
    {"gpugate",
     {"quota"},
     "Usage: gpugate quota [--server URL] [--cacert FILE | --insecure-skip-tls-verify]",
     {"--server URL", "--cacert FILE", "--insecure-skip-tls-verify", "--cert FILE", "--key FILE",
      "--tls-server-name NAME", "--kubeconfig FILE", "--context NAME", "-n, --namespace NS",
      "-o, --output FORMAT", "-h, --help"}},
    {"gpugate",
     {"usage"},
     "Usage: gpugate usage [--period YYYY-MM | --since DATE --until DATE]",
     {"--period YYYY-MM", "--since DATE", "--until DATE", "--by GROUP", "-n, --namespace NS",
      "-o, --output FORMAT", "--chart FILE", "--chart-resource NAME", "--server URL",
      "--cacert FILE", "--insecure-skip-tls-verify", "--cert FILE", "--key FILE",
      "--tls-server-name NAME", "--kubeconfig FILE", "--context NAME", "-h, --help"}},
    {"gpugate",
     {"check"},
     "Usage: gpugate check -f FILE|DIR|- [-f ...] [--config FILE] [-o|--output text|json]\n",
     {"-f, --filename PATH", "--config FILE", "-o, --output FORMAT", "-h, --help"}},
    {"gpugate",
     {"audit"},
     "Usage: gpugate audit [--kubeconfig FILE] [--context NAME] [--config FILE]",
     {"--kubeconfig FILE", "--context NAME", "--config FILE", "-n, --namespace NS",
      "-o, --output FORMAT", "--chunk-size N", "-h, --help"}},
    {"gpugate", {"version"}, "Usage: gpugate version\n", {"-h, --help"}},
    // `kubectl gpuquota --help` runs the link kubectl-gpuquota with --help.
    {"/usr/local/bin/kubectl-gpuquota",
     {},
     "Usage: kubectl gpuquota [--server URL] [--cacert FILE | --insecure-skip-tls-verify]",
     {"--server URL", "--kubeconfig FILE", "-o, --output FORMAT", "-h, --help"}},
    // `kubectl gpuusage --help` runs the link kubectl-gpuusage with --help.
    {"/usr/local/bin/kubectl-gpuusage",
     {},
     "Usage: kubectl gpuusage [--period YYYY-MM | --since DATE --until DATE]",
     {"--period YYYY-MM", "--server URL", "--kubeconfig FILE", "--chart FILE", "-h, --help"}},
};

TEST(Cli, EveryCommandPrintsItsOwnHelp) {
  for (const HelpCase& c : kHelpCases) {
    for (const char* help : {"--help", "-h"}) {
      std::vector<std::string> args = c.args;
      args.push_back(help);
      SCOPED_TRACE(c.program + " " + ::testing::PrintToString(args));
      const Ran ran = RunCli(c.program, args);
      EXPECT_EQ(ran.code, 0);
      EXPECT_EQ(ran.err, "");
      EXPECT_TRUE(ran.out.starts_with(c.usage)) << ran.out;
      for (const std::string& flag : c.flags) {
        EXPECT_NE(FlagDescription(ran.out, flag), "") << flag << " is not described:\n" << ran.out;
      }
    }
  }
}

TEST(Cli, TopLevelHelpListsEveryCommandAsItsHelpDoes) {
  const Ran ran = RunCli("gpugate", {"--help"});
  EXPECT_EQ(ran.code, 0);
  for (const char* line :
       {"\n  gpugate serve [--config FILE] [--listen HOST:PORT]",
        "\n  gpugate certs --out DIR [--service NAME]",
        "\n  gpugate quota [--server URL] [--cacert FILE",
        "\n  gpugate quota --kubeconfig FILE [--context NAME]",
        "\n  gpugate check -f FILE|DIR|- [-f ...]",
        "\n  gpugate audit [--kubeconfig FILE] [--context NAME]", "\n  gpugate version\n",
        "\n  gpugate COMMAND --help, gpugate help COMMAND\n"}) {
    EXPECT_NE(ran.out.find(line), std::string::npos) << line << " missing from\n" << ran.out;
  }
  for (const char* command : {"serve", "certs", "quota", "check", "audit"}) {
    const std::string help = RunCli("gpugate", {command, "--help"}).out;
    const size_t summary = help.find("\n\n") + 2;  // after the usage lines
    const std::string firstLine = help.substr(summary, help.find('\n', summary) - summary);
    EXPECT_NE(ran.out.find("\n      " + firstLine + "\n"), std::string::npos)
        << command << ": \"" << firstLine << "\" is not in the top-level help";
  }
}

// `gpugate help CMD` is `gpugate CMD --help`.
TEST(Cli, HelpCommandPrintsThatCommandsHelp) {
  for (const char* command : {"serve", "certs", "quota", "check", "audit", "version"}) {
    SCOPED_TRACE(command);
    const Ran viaHelp = RunCli("gpugate", {"help", command});
    EXPECT_EQ(viaHelp.code, 0);
    EXPECT_TRUE(viaHelp.out.starts_with(std::string("Usage: gpugate ") + command)) << viaHelp.out;
    EXPECT_EQ(viaHelp.out, RunCli("gpugate", {command, "--help"}).out);
  }
}

TEST(Cli, VersionPrintsTheVersion) {
  const Ran ran = RunCli("gpugate", {"version"});
  EXPECT_EQ(ran.code, 0);
  EXPECT_TRUE(ran.out.starts_with("gpugate ")) << ran.out;
  EXPECT_EQ(ran.out, RunCli("gpugate", {"--version"}).out);
}

// A flag the parser accepts is one the help describes.
TEST(Cli, EveryFlagIsDescribed) {
  for (const CommandHelp* command : {&kServeHelp, &kCertsHelp, &kQuotaHelp, &kCheckHelp}) {
    for (const FlagSpec& flag : command->flags) {
      SCOPED_TRACE(std::string(command->name) + " --" + std::string(flag.name));
      EXPECT_NE(flag.help, "");
      EXPECT_EQ(flag.valueName.empty(), !flag.takesValue) << "a flag with a value names it";
    }
  }
}

// The defaults the help text names are the ones the code applies.
TEST(Cli, HelpNamesTheRealDefaults) {
  const config::Config config;
  const certs::CertOptions certOptions;
  const struct {
    const char* command;
    std::string text;
  } cases[] = {
      {"serve", "default " + config.listen},
      {"serve", "default " + config.tls.certFile},
      {"serve", "default " + config.tls.keyFile},
      {"certs", "default " + certOptions.service + ")"},
      {"certs", "default " + certOptions.ns + ")"},
      {"certs", "default " + std::to_string(certOptions.days) + ")"},
  };
  for (const auto& c : cases) {
    const Ran ran = RunCli("gpugate", {c.command, "--help"});
    EXPECT_NE(ran.out.find(c.text), std::string::npos) << c.command << ": " << c.text;
  }
}

TEST(Cli, UnknownFlagsStillExitTwoWithTheirMessage) {
  const struct {
    std::string program;
    std::vector<std::string> args;
    std::string message;  // how stderr starts
  } cases[] = {
      {"gpugate", {"serve", "--bogus"}, "gpugate serve: unknown flag --bogus\n"},
      {"gpugate", {"serve", "-x"}, "gpugate serve: unknown flag -x\n"},
      {"gpugate", {"certs", "--bogus", "--help"}, "gpugate certs: unknown flag --bogus\n"},
      {"gpugate", {"quota", "--bogus"}, "gpugate quota: unknown flag --bogus\n"},
      {"kubectl-gpuquota", {"--bogus"}, "kubectl gpuquota: unknown flag --bogus\n"},
      {"gpugate", {"usage", "--bogus"}, "gpugate usage: unknown flag --bogus\n"},
      {"kubectl-gpuusage",
       {"--by", "user"},
       "kubectl gpuusage: --by: must be namespace, model, resource or day\n"},
      {"gpugate", {"serve", "--help=yes"}, "gpugate serve: flag --help takes no value\n"},
      {"gpugate", {"bogus"}, "gpugate: unknown command \"bogus\"\n"},
      {"gpugate", {"help", "bogus"}, "gpugate: unknown command \"bogus\"\n"},
      {"gpugate", {"check", "--bogus"}, "gpugate check: unknown flag --bogus\n"},
      {"gpugate", {"check"}, "gpugate check: needs -f FILE, -f DIR or -f - (stdin)\n"},
      {"gpugate", {"audit", "--bogus"}, "gpugate audit: unknown flag --bogus\n"},
      {"gpugate",
       {"audit", "-o", "yaml"},
       "gpugate audit: -o must be table or json, got \"yaml\"\n"},
      {"gpugate",
       {"audit", "--chunk-size", "-1"},
       "gpugate audit: --chunk-size must be a number of objects from 0 to 100000, got \"-1\"\n"},
      {"gpugate", {"audit", "pods"}, "gpugate audit: unexpected argument \"pods\"\n"},
      {"gpugate", {"version", "extra"}, "gpugate version: takes no arguments, got \"extra\"\n"},
      {"gpugate", {"version", "--bogus"}, "gpugate version: unknown flag --bogus\n"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(::testing::PrintToString(c.args));
    const Ran ran = RunCli(c.program, c.args);
    EXPECT_EQ(ran.code, 2);
    EXPECT_EQ(ran.out, "");
    EXPECT_TRUE(ran.err.starts_with(c.message)) << ran.err;
  }
}

}  // namespace
}  // namespace gpugate::cli
