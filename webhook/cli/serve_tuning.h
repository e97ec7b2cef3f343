// The config file's `server` section laid over the transport's tuning: each deadline the file
// sets replaces transport::Tuning's default, the others stay as tuning.h has them.
#pragma once

#include "config/config.h"
#include "transport/tuning.h"

namespace gpugate::cli {

void ApplyServerConfig(const config::ServerConfig& server, transport::Tuning& tuning);

}  // namespace gpugate::cli
