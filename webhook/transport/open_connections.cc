#include "transport/open_connections.h"

#include <sys/socket.h>

#include <memory>

namespace gpugate::transport {

// Hung on each tracked SSL object; freed, and its descriptor forgotten, with the SSL object.
struct OpenConnections::Entry {
  OpenConnections* owner;
  int fd;
};

const OpenConnections::ExIndexes& OpenConnections::Indexes() {
  static const ExIndexes indexes{
      .ctx = SSL_CTX_get_ex_new_index(0, nullptr, nullptr, nullptr, nullptr),
      .ssl = SSL_get_ex_new_index(0, nullptr, nullptr, nullptr, &OnFree)};
  return indexes;
}

void OpenConnections::Track(SSL_CTX& ctx) {
  SSL_CTX_set_ex_data(&ctx, Indexes().ctx, this);
  SSL_CTX_set_info_callback(&ctx, &OnInfo);
}

void OpenConnections::OnInfo(const SSL* ssl, int where, int) {
  // HANDSHAKE_START also fires for TLS 1.3 post-handshake messages; record a connection once.
  const ExIndexes& ix = Indexes();
  if (!(where & SSL_CB_HANDSHAKE_START) || SSL_get_ex_data(ssl, ix.ssl) != nullptr) return;
  auto* owner = static_cast<OpenConnections*>(SSL_CTX_get_ex_data(SSL_get_SSL_CTX(ssl), ix.ctx));
  int fd = SSL_get_fd(ssl);
  if (owner == nullptr || fd < 0) return;
  auto entry = std::make_unique<Entry>(Entry{owner, fd});
  if (SSL_set_ex_data(const_cast<SSL*>(ssl), ix.ssl, entry.get()) != 1) return;
  std::lock_guard lock(owner->mu_);
  owner->fds_.insert(entry.release()->fd);
}

void OpenConnections::OnFree(void*, void* ptr, CRYPTO_EX_DATA*, int, long, void*) {
  std::unique_ptr<Entry> entry(static_cast<Entry*>(ptr));
  if (!entry) return;  // an SSL object that never started a handshake
  std::lock_guard lock(entry->owner->mu_);
  entry->owner->fds_.erase(entry->fd);
}

size_t OpenConnections::ShutdownReads() {
  std::lock_guard lock(mu_);
  for (int fd : fds_) ::shutdown(fd, SHUT_RD);
  return fds_.size();
}

}  // namespace gpugate::transport
