// Serves whatever the TLS files hold now, without a restart: cert-manager renewing the Secret,
// or an operator replacing it, changes the pair new connections get within one poll interval,
// and connections already open keep the pair they started with.
//
// The current material sits in atomically swapped shared pointers. A certificate callback
// installs it in each handshake (SSL_CTX_set_cert_cb), so the one SSL_CTX the server makes
// connections from for its whole life serves every pair. A thread re-reads the files every
// interval and compares their contents: the kubelet updates a mounted Secret by swapping a
// symlink to a new directory (`..data`), which inotify on the file itself never sees, and
// reading through the path's symlinks sees any way of replacing a file. A changed set that does
// not load (unreadable, not PEM, a key that does not match) is rejected: the previous material
// stays in service, the rejection is logged as a warning and counted, and the set is tried again
// when its contents change again. docs/decisions.md ("Certificate rotation and mutual TLS").
#pragma once

#include <openssl/ssl.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "common/result.h"
#include "transport/tls_files.h"

namespace gpugate::transport {

struct TlsFiles {
  std::string certFile;
  std::string keyFile;
  std::string clientCaFile;  // "" = callers are not asked for a certificate
  std::chrono::milliseconds reloadInterval = std::chrono::seconds(10);
};

// Thread-safe: handshakes read the current material on any thread while one thread polls.
class TlsReloader {
 public:
  // Reads and checks every file once. Errors name the file as start-up reports them.
  static Result<std::unique_ptr<TlsReloader>> Load(TlsFiles files);
  ~TlsReloader();  // stops polling
  TlsReloader(const TlsReloader&) = delete;
  TlsReloader& operator=(const TlsReloader&) = delete;

  // Sets up `ctx`: ConfigureServerProtocol (tls_context.h), the certificate callback, and with a
  // client CA, a certificate request in every handshake. The handshake completes whether or not
  // the caller's certificate verifies; the result stays on the connection for the route guard
  // (client_auth.h). `ctx` keeps a pointer to this object, which must outlive it.
  void Install(SSL_CTX& ctx);

  // Calls Poll every reloadInterval on a thread of its own, until destruction. Once only.
  void StartPolling();
  // Reads the files once and takes any set whose contents changed and loads.
  void Poll();

  bool requestsClientCertificates() const { return !files_.clientCaFile.empty(); }
  std::shared_ptr<const ServingPair> servingPair() const { return serving_.load(); }

  // gpugate_tls_reload_total{files,result}, gpugate_tls_files_rejected{files} and
  // gpugate_tls_certificate_not_after_seconds{files}, files being "serving" or "client_ca".
  std::string RenderMetrics() const;

 private:
  // What polling knows of one set of files.
  struct Watch {
    std::string digest;  // of the contents last seen, loaded or rejected
    bool rejected = false;
    uint64_t loaded = 0;  // changes taken into service since start-up
    uint64_t errors = 0;  // changes rejected
  };

  explicit TlsReloader(TlsFiles files) : files_(std::move(files)) {}
  void PollServing();
  void PollClientCa();
  // Whether `digest` differs from the one `watch` last saw; takes it as seen (under mu_).
  bool Changed(Watch& watch, const std::string& digest);
  // Records the outcome of a change to `watch`'s files (under mu_) and logs it.
  void Record(Watch& watch, const char* label, const Status& outcome, const std::string& detail);
  static int OnHandshake(SSL* ssl, void* self);

  // A pointer the poller replaces while handshakes take copies: a mutex held for the copy
  // alone (a handshake's, not a request's cost). Not std::atomic<std::shared_ptr>: libstdc++
  // 12's load() lets go of its lock bit with a relaxed store, so its read of the pointer is not
  // ordered before the next store()'s write, which ThreadSanitizer reports as the race it is
  // under the C++ memory model.
  template <typename T>
  class Published {
   public:
    std::shared_ptr<const T> load() const {
      std::lock_guard lock(mu_);
      return value_;
    }
    // The previous value is released by the caller's copy of `value`, after the lock.
    void store(std::shared_ptr<const T> value) {
      std::lock_guard lock(mu_);
      value_.swap(value);
    }

   private:
    mutable std::mutex mu_;
    std::shared_ptr<const T> value_;  // guarded by mu_
  };

  const TlsFiles files_;
  Published<ServingPair> serving_;
  Published<ClientCa> clientCa_;  // null without clientCaFile

  mutable std::mutex mu_;
  Watch servingWatch_;   // guarded by mu_
  Watch clientCaWatch_;  // guarded by mu_

  std::mutex stopMu_;
  std::condition_variable stopCv_;
  bool stopping_ = false;  // guarded by stopMu_
  std::thread poller_;
};

}  // namespace gpugate::transport
