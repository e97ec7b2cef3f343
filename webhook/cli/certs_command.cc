#include <charconv>
#include <iostream>

#include "certs/certificates.h"
#include "cli/cli.h"
#include "cli/flags.h"

namespace gpugate::cli {
namespace {

constexpr FlagSpec kCertsFlags[] = {{"out"},  {"service"}, {"namespace"},
                                    {"days"}, {"host"},    {"client"}};

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

int RunCerts(const std::vector<std::string>& args) {
  auto flags = Flags::Parse(args, kCertsFlags);
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
