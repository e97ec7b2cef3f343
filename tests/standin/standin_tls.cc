#include "standin/standin_tls.h"

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

namespace gpugate::testing::standin {
namespace {

// What an SSL carries from its handshake to SSL_free: which socket, and who tracks it.
struct Tracked {
  OpenConnections* owner;
  int fd;
};

// One ex_data slot per process for every server's SSLs; its free callback runs in SSL_free.
int TrackedIndex(CRYPTO_EX_free* onFree) {
  static const int index = SSL_get_ex_new_index(0, nullptr, nullptr, nullptr, onFree);
  return index;
}

}  // namespace

bool OpenConnections::Configure(SSL_CTX& ctx, const std::string& certFile,
                                const std::string& keyFile) {
  if (SSL_CTX_use_certificate_chain_file(&ctx, certFile.c_str()) != 1 ||
      SSL_CTX_use_PrivateKey_file(&ctx, keyFile.c_str(), SSL_FILETYPE_PEM) != 1 ||
      SSL_CTX_check_private_key(&ctx) != 1) {
    return false;
  }
  SSL_CTX_set_min_proto_version(&ctx, TLS1_2_VERSION);
  SSL_CTX_set_options(&ctx, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION);
  SSL_CTX_set_app_data(&ctx, this);
  SSL_CTX_set_info_callback(&ctx, &OnInfo);
  return TrackedIndex(&OnFree) >= 0;
}

void OpenConnections::OnInfo(const SSL* ssl, int where, int) {
  if (!(where & SSL_CB_HANDSHAKE_START)) return;
  int index = TrackedIndex(&OnFree);
  if (SSL_get_ex_data(ssl, index) != nullptr) return;  // TLS 1.3 post-handshake messages
  auto* owner = static_cast<OpenConnections*>(SSL_CTX_get_app_data(SSL_get_SSL_CTX(ssl)));
  int fd = SSL_get_fd(ssl);
  if (owner == nullptr || fd < 0) return;
  owner->Add(fd);
  // OpenSSL hands the callback a const SSL; ex_data is the SSL's own scratch space.
  SSL_set_ex_data(const_cast<SSL*>(ssl), index, new Tracked{owner, fd});
}

void OpenConnections::OnFree(void*, void* ptr, CRYPTO_EX_DATA*, int, long, void*) {
  auto* tracked = static_cast<Tracked*>(ptr);
  if (tracked == nullptr) return;
  tracked->owner->Remove(tracked->fd);
  delete tracked;
}

void OpenConnections::Add(int fd) {
  sockaddr_storage peer{};
  socklen_t size = sizeof peer;
  int port = -1;
  if (getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &size) == 0 &&
      peer.ss_family == AF_INET) {
    port = ntohs(reinterpret_cast<const sockaddr_in*>(&peer)->sin_port);
  }
  std::lock_guard lock(mu_);
  peerPorts_[fd] = port;
}

void OpenConnections::Remove(int fd) {
  std::lock_guard lock(mu_);
  peerPorts_.erase(fd);
}

bool OpenConnections::PeerHungUp(int peerPort) {
  std::lock_guard lock(mu_);
  for (const auto& [fd, port] : peerPorts_) {
    if (port != peerPort) continue;
    pollfd probe{fd, POLLRDHUP, 0};
    return ::poll(&probe, 1, 0) > 0 && (probe.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0;
  }
  return false;
}

void OpenConnections::ShutdownAll() {
  // Under mu_, so no socket is shut after httplib has closed it (and its number been reused).
  std::lock_guard lock(mu_);
  for (const auto& [fd, port] : peerPorts_) ::shutdown(fd, SHUT_RDWR);
}

}  // namespace gpugate::testing::standin
