// Test-only helpers for the cluster library's tests: a temporary directory, and a CA with a
// serving certificate for 127.0.0.1 issued once per test binary. They are certs/test_certs.h's,
// named here so that the cluster tests say `testing::SharedTestCerts()` as before.
#pragma once

#include "certs/test_certs.h"

namespace gpugate::cluster::testing {

using certs::testing::IssueTestCerts;
using certs::testing::SharedTestCerts;
using certs::testing::TempDir;
using certs::testing::TestCerts;

}  // namespace gpugate::cluster::testing
