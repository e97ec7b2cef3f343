#include "transport/tls_reloader.h"

#include <utility>
#include <vector>

#include "common/files.h"
#include "transport/log.h"
#include "transport/tls_context.h"

namespace gpugate::transport {
namespace {

// One reading of a set of files: a digest of what was read (or of why it could not be read) and
// what it parses to.
template <typename T>
struct Reading {
  std::string digest;
  Result<std::shared_ptr<const T>> material;
};

// Errors name the key and the file, as the parsers' do:
//   tls.certFile /x/tls.crt: cannot read: No such file or directory
Result<std::string> ReadNamed(const char* key, const std::string& path) {
  auto text = ReadFile(path);
  if (text) return text;
  std::string why = text.error().message;
  const std::string prefix = "cannot read " + path + ": ";  // ReadFile's own wording
  if (why.starts_with(prefix)) why = "cannot read: " + why.substr(prefix.size());
  return Fail(std::string(key) + " " + path + ": " + why);
}

Reading<ServingPair> ReadServing(const TlsFiles& files) {
  auto cert = ReadNamed("tls.certFile", files.certFile);
  auto key = ReadNamed("tls.keyFile", files.keyFile);
  if (!cert || !key) {
    Error why = cert ? key.error() : cert.error();
    return {ContentDigest({"unreadable", why.message}), std::unexpected(why)};
  }
  return {ContentDigest({*cert, *key}),
          ParseServingPair(*cert, *key, files.certFile, files.keyFile)};
}

Reading<ClientCa> ReadClientCa(const TlsFiles& files) {
  auto pem = ReadNamed("tls.clientCAFile", files.clientCaFile);
  if (!pem)
    return {ContentDigest({"unreadable", pem.error().message}), std::unexpected(pem.error())};
  return {ContentDigest({*pem}), ParseClientCa(*pem, files.clientCaFile)};
}

// Lets the handshake finish whatever verifying the caller's certificate found. OpenSSL keeps the
// result on the connection (SSL_get_verify_result), and the route guard refuses an unverified
// caller with a 403 that says why, where a failed handshake would tell it only "unknown CA"
// (in TLS 1.3 not even that until its first read) and would end /healthz for it too.
int KeepVerifyResult(int, X509_STORE_CTX*) { return 1; }

}  // namespace

Result<std::unique_ptr<TlsReloader>> TlsReloader::Load(TlsFiles files) {
  std::unique_ptr<TlsReloader> reloader(new TlsReloader(std::move(files)));
  auto serving = ReadServing(reloader->files_);
  if (!serving.material) return std::unexpected(serving.material.error());
  reloader->serving_.store(*serving.material);
  reloader->servingWatch_.digest = serving.digest;
  if (reloader->requestsClientCertificates()) {
    auto ca = ReadClientCa(reloader->files_);
    if (!ca.material) return std::unexpected(ca.material.error());
    reloader->clientCa_.store(*ca.material);
    reloader->clientCaWatch_.digest = ca.digest;
  }
  return reloader;
}

TlsReloader::~TlsReloader() {
  {
    std::lock_guard lock(stopMu_);
    stopping_ = true;
  }
  stopCv_.notify_all();
  if (poller_.joinable()) poller_.join();
}

void TlsReloader::Install(SSL_CTX& ctx) {
  ConfigureServerProtocol(ctx);
  SSL_CTX_set_cert_cb(&ctx, &TlsReloader::OnHandshake, this);
  if (!requestsClientCertificates()) return;
  // Asked for, not required: the kubelet's probes present no certificate and must still reach
  // /healthz and /readyz.
  SSL_CTX_set_verify(&ctx, SSL_VERIFY_PEER, KeepVerifyResult);
  // No resumption: a resumed session keeps the verification of its first handshake, made
  // against a CA that may since have been replaced. The apiserver does not resume anyway.
  static constexpr unsigned char kSessionContext[] = "gpugate";
  SSL_CTX_set_session_id_context(&ctx, kSessionContext, sizeof kSessionContext - 1);
  SSL_CTX_set_session_cache_mode(&ctx, SSL_SESS_CACHE_OFF);
  SSL_CTX_set_options(&ctx, SSL_OP_NO_TICKET);
  SSL_CTX_set_num_tickets(&ctx, 0);
}

// Runs in the handshake, after the ClientHello and before the server picks its cipher and
// signature algorithm, on whichever thread serves the connection. Returning 0 ends the
// handshake with an internal_error alert.
int TlsReloader::OnHandshake(SSL* ssl, void* arg) {
  const auto* self = static_cast<const TlsReloader*>(arg);
  std::shared_ptr<const ServingPair> pair = self->serving_.load();
  // The SSL takes its own references; override=1 replaces what an earlier call set (a TLS 1.3
  // HelloRetryRequest runs this twice).
  if (SSL_use_cert_and_key(ssl, pair->leaf.get(), pair->key.get(), pair->chain.get(), 1) != 1) {
    return 0;
  }
  std::shared_ptr<const ClientCa> ca = self->clientCa_.load();
  if (!ca) return 1;
  if (SSL_set1_verify_cert_store(ssl, ca->store.get()) != 1) return 0;
  STACK_OF(X509_NAME)* names = SSL_dup_CA_list(ca->names.get());
  if (!names) return 0;
  SSL_set_client_CA_list(ssl, names);  // takes ownership
  return 1;
}

void TlsReloader::StartPolling() {
  poller_ = std::thread([this] {
    std::unique_lock lock(stopMu_);
    while (!stopCv_.wait_for(lock, files_.reloadInterval, [this] { return stopping_; })) {
      lock.unlock();
      Poll();
      lock.lock();
    }
  });
}

void TlsReloader::Poll() {
  PollServing();
  if (requestsClientCertificates()) PollClientCa();
}

void TlsReloader::PollServing() {
  auto serving = ReadServing(files_);
  if (!Changed(servingWatch_, serving.digest)) return;
  if (!serving.material) {
    Record(servingWatch_, "serving", std::unexpected(serving.material.error()), "");
    return;
  }
  serving_.store(*serving.material);
  const ServingPair& pair = **serving.material;
  Record(servingWatch_, "serving", {},
         pair.subject + ", valid until " + std::to_string(pair.notAfter));
}

void TlsReloader::PollClientCa() {
  auto ca = ReadClientCa(files_);
  if (!Changed(clientCaWatch_, ca.digest)) return;
  if (!ca.material) {
    Record(clientCaWatch_, "client_ca", std::unexpected(ca.material.error()), "");
    return;
  }
  clientCa_.store(*ca.material);
  Record(clientCaWatch_, "client_ca", {},
         std::to_string((*ca.material)->count) + " certificate(s)");
}

bool TlsReloader::Changed(Watch& watch, const std::string& digest) {
  std::lock_guard lock(mu_);
  if (digest == watch.digest) return false;
  watch.digest = digest;
  return true;
}

void TlsReloader::Record(Watch& watch, const char* label, const Status& outcome,
                         const std::string& detail) {
  {
    std::lock_guard lock(mu_);
    watch.rejected = !outcome.has_value();
    ++(outcome ? watch.loaded : watch.errors);
  }
  if (outcome) {
    LogLine("tls files reloaded").Str("files", label).Str("loaded", detail).Info();
  } else {
    LogLine("tls files rejected, still serving the previous ones")
        .Str("files", label)
        .Str("error", outcome.error().message)
        .Warn();
  }
}

std::string TlsReloader::RenderMetrics() const {
  struct Row {
    const char* label;
    Watch watch;
    int64_t notAfter;
  };
  std::vector<Row> rows;
  {
    std::lock_guard lock(mu_);
    rows.push_back({"serving", servingWatch_, serving_.load()->notAfter});
    if (auto ca = clientCa_.load())
      rows.push_back({"client_ca", clientCaWatch_, ca->earliestNotAfter});
  }
  std::string out =
      "# HELP gpugate_tls_reload_total Changes to the TLS files seen while serving: ok (served "
      "from the next handshake on) or error (rejected; the previous ones are still served).\n"
      "# TYPE gpugate_tls_reload_total counter\n";
  for (const Row& r : rows) {
    std::string files = std::string("{files=\"") + r.label + "\",result=";
    out += "gpugate_tls_reload_total" + files + "\"ok\"} " + std::to_string(r.watch.loaded) + "\n";
    out +=
        "gpugate_tls_reload_total" + files + "\"error\"} " + std::to_string(r.watch.errors) + "\n";
  }
  out +=
      "# HELP gpugate_tls_files_rejected 1 while the TLS files hold a change that was rejected, "
      "so older ones are served.\n"
      "# TYPE gpugate_tls_files_rejected gauge\n";
  for (const Row& r : rows) {
    out += std::string("gpugate_tls_files_rejected{files=\"") + r.label + "\"} " +
           (r.watch.rejected ? "1" : "0") + "\n";
  }
  out +=
      "# HELP gpugate_tls_certificate_not_after_seconds When the served certificate expires "
      "(serving), or the first of the client CAs (client_ca), in Unix seconds.\n"
      "# TYPE gpugate_tls_certificate_not_after_seconds gauge\n";
  for (const Row& r : rows) {
    out += std::string("gpugate_tls_certificate_not_after_seconds{files=\"") + r.label + "\"} " +
           std::to_string(r.notAfter) + "\n";
  }
  return out;
}

}  // namespace gpugate::transport
