#include "cli/serve_tuning.h"

namespace gpugate::cli {

void ApplyServerConfig(const config::ServerConfig& server, transport::Tuning& tuning) {
  if (server.handshakeTimeout) tuning.handshakeTimeout = *server.handshakeTimeout;
  if (server.headerTimeout) tuning.headerTimeout = *server.headerTimeout;
  if (server.bodyTimeout) tuning.bodyTimeout = *server.bodyTimeout;
  if (server.writeTimeout) tuning.writeTimeout = *server.writeTimeout;
  if (server.handlingTimeout) tuning.handlingTimeout = *server.handlingTimeout;
  if (server.bufferedRequestBytes) tuning.bufferedRequestBytes = *server.bufferedRequestBytes;
  if (server.keepAliveIdle) tuning.keepAliveIdle = *server.keepAliveIdle;
}

}  // namespace gpugate::cli
