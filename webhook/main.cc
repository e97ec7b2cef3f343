#include <string>
#include <vector>

#include "cli/cli.h"

int main(int argc, char** argv) {
  // argv[0] selects the command when the binary runs as the kubectl plugin kubectl-gpuquota.
  if (argc < 1 || argv[0] == nullptr) return gpugate::cli::Run("gpugate", {});
  return gpugate::cli::Run(argv[0], std::vector<std::string>(argv + 1, argv + argc));
}
