// The `gpugate` command: subcommands serve, certs, quota, version.
#pragma once

#include <string>
#include <vector>

namespace gpugate::cli {

// Runs the command line (without argv[0]); returns the process exit code.
// 0 success, 1 failure at run time, 2 a usage error.
int Run(const std::vector<std::string>& args);

int RunServe(const std::vector<std::string>& args);
int RunCerts(const std::vector<std::string>& args);

}  // namespace gpugate::cli
