#include "common/host_port.h"

#include <gtest/gtest.h>

namespace gpugate {
namespace {

TEST(ParseHostPort, Table) {
  struct Case {
    const char* in;
    const char* host;  // nullptr: error expected
    int port;
    const char* error;
  } cases[] = {
      {"0.0.0.0:8443", "0.0.0.0", 8443, ""},
      {"127.0.0.1:0", "127.0.0.1", 0, ""},
      {":9000", nullptr, 0, "host is missing; use 0.0.0.0:PORT for every interface"},
      {"[::]:8443", "::", 8443, ""},
      {"localhost:443", "localhost", 443, ""},
      {"8443", nullptr, 0, "must be HOST:PORT, got \"8443\""},
      {"::1:8443", nullptr, 0, "IPv6 hosts must be in brackets, e.g. [::]:8443"},
      {"host:99999", nullptr, 0, "port must be a number from 0 to 65535, got \"99999\""},
      {"host:http", nullptr, 0, "port must be a number from 0 to 65535, got \"http\""},
      {"host:", nullptr, 0, "port must be a number from 0 to 65535, got \"\""},
  };
  for (const auto& c : cases) {
    auto got = ParseHostPort(c.in);
    if (c.host) {
      ASSERT_TRUE(got) << c.in << ": " << got.error().message;
      EXPECT_EQ(got->host, c.host) << c.in;
      EXPECT_EQ(got->port, c.port) << c.in;
    } else {
      ASSERT_FALSE(got) << c.in;
      EXPECT_EQ(got.error().message, c.error) << c.in;
    }
  }
}

}  // namespace
}  // namespace gpugate
