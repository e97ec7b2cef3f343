// Test-only helpers for tests that serve or call TLS (transport, cluster, the stand-in): a
// temporary directory, and a CA with a serving certificate for 127.0.0.1 issued once per test
// binary. Here, beside the issuer, so that no layer's tests depend on another layer for them.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "certs/certificates.h"
#include "support/temp_dir.h"

namespace gpugate::certs::testing {

// The one scratch directory of all the tests (tests/support/temp_dir.h).
using gpugate::testing::TempDir;

struct TestCerts {
  TempDir dir;  // ca.crt, tls.crt, tls.key
  CertBundle bundle;
  std::string certFile() const { return dir.File("tls.crt"); }
  std::string keyFile() const { return dir.File("tls.key"); }
};

// A fresh CA and server certificate (SANs: gpugate.gpugate-system.svc and friends, 127.0.0.1).
inline std::unique_ptr<TestCerts> IssueTestCerts() {
  auto certs = std::make_unique<TestCerts>();
  auto bundle = IssueCertificates({.extraHosts = {"127.0.0.1"}});
  EXPECT_TRUE(bundle) << bundle.error().message;
  if (!bundle) return certs;
  certs->bundle = *bundle;
  auto written = WriteBundle(*bundle, certs->dir.path());
  EXPECT_TRUE(written) << written.error().message;
  return certs;
}

// One set shared by every test of the binary: issuing takes a few milliseconds only, but the
// stand-in tests start many servers.
inline const TestCerts& SharedTestCerts() {
  static const TestCerts* shared = IssueTestCerts().release();
  return *shared;
}

}  // namespace gpugate::certs::testing
