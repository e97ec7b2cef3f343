// The cluster tests' names for the shared test certificates (certs/test_certs.h): a temporary
// directory, and a CA with a serving certificate for 127.0.0.1 issued once per test binary.
#pragma once

#include "certs/test_certs.h"

namespace gpugate::cluster::testing {

using certs::testing::IssueTestCerts;
using certs::testing::SharedTestCerts;
using certs::testing::TempDir;
using certs::testing::TestCerts;

}  // namespace gpugate::cluster::testing
