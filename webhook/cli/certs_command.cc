#include <charconv>
#include <iostream>

#include "certs/certificates.h"
#include "cli/cli.h"
#include "cli/flags.h"

namespace gpugate::cli {
namespace {

// Defaults named here are certs::CertOptions'; cli_test.cc checks they agree.
constexpr FlagSpec kCertsFlags[] = {
    {.name = "out",
     .valueName = "DIR",
     .help = "write ca.crt, tls.crt and tls.key here (required); created if missing"},
    {.name = "service",
     .valueName = "NAME",
     .help = "the webhook Service: the server certificate names NAME, NAME.NS, NAME.NS.svc\n"
             "and NAME.NS.svc.cluster.local (default gpugate)"},
    {.name = "namespace",
     .valueName = "NS",
     .help = "the Service's namespace (default gpugate-system)"},
    {.name = "days",
     .valueName = "N",
     .help = "how long the certificates are valid, in days (default 365)"},
    {.name = "host",
     .valueName = "H",
     .help = "also name this DNS name or IP address in the server certificate (e.g.\n"
             "127.0.0.1 for a local gpugate); repeat for more"},
    {.name = "client",
     .valueName = "NAME",
     .help = "also write client.crt and client.key: a client certificate with CN=NAME\n"
             "from the same CA, for a caller of a gpugate with --tls-client-ca"},
    kHelpFlag,
};

constexpr std::string_view kCertsForms[] = {
    "--out DIR [--service NAME] [--namespace NS] [--days N] [--host H]...\n"
    "[--client NAME]"};

Result<certs::CertOptions> CertOptionsFrom(const Flags& flags) {
  certs::CertOptions options;
  if (auto v = flags.Get("service")) options.service = *v;
  if (auto v = flags.Get("namespace")) options.ns = *v;
  if (auto v = flags.Get("days")) {
    auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), options.days);
    if (ec != std::errc() || end != v->data() + v->size()) {
      return Fail("--days must be a whole number, got \"" + *v + "\"");
    }
  }
  options.extraHosts = flags.GetAll("host");
  if (auto v = flags.Get("client")) {
    if (v->empty()) return Fail("--client must be 1 to 64 printable ASCII characters, got \"\"");
    options.clientName = *v;
  }
  return options;
}

}  // namespace

const CommandHelp kCertsHelp = {
    .name = "certs",
    .forms = kCertsForms,
    .summary =
        "Write ca.crt, tls.crt and tls.key for the webhook Service; print the caBundle.\n"
        "With --client, also client.crt and client.key (CN=NAME, for client\n"
        "authentication).",
    .flags = kCertsFlags,
};

int RunCerts(const std::vector<std::string>& args) {
  auto flags = Flags::Parse(args, kCertsFlags);
  if (flags && flags->Has("help")) {
    PrintCommandHelp(std::cout, kCertsHelp, "gpugate certs");
    return 0;
  }
  if (flags && !flags->Has("out")) flags = Fail("--out DIR is required");
  if (!flags) {
    std::cerr << "gpugate certs: " << flags.error().message << "\n";
    return 2;
  }
  auto options = CertOptionsFrom(*flags);
  if (!options) {
    std::cerr << "gpugate certs: " << options.error().message << "\n";
    return 2;
  }
  auto bundle = certs::IssueCertificates(*options);
  if (!bundle) {
    std::cerr << "gpugate certs: " << bundle.error().message << "\n";
    return 1;
  }
  const std::string dir = *flags->Get("out");
  if (auto written = certs::WriteBundle(*bundle, dir); !written) {
    std::cerr << "gpugate certs: " << written.error().message << "\n";
    return 1;
  }
  std::cerr << "gpugate certs: wrote " << dir << "/ca.crt, tls.crt, tls.key for";
  for (const auto& san : bundle->sans) std::cerr << " " << san;
  if (!bundle->clientCertPem.empty()) {
    std::cerr << "\nwrote " << dir << "/client.crt, client.key for CN=" << options->clientName;
  }
  std::cerr << "\ncaBundle (stdout):\n";
  std::cout << certs::CaBundle(*bundle) << "\n";
  return 0;
}

}  // namespace gpugate::cli
