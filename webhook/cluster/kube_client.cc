// The Kubernetes API client over cpp-httplib 0.11.4 SSLClients.
//
// Server verification is OpenSSL's, not httplib's. httplib's own check loads the system roots
// into whatever store the client has (SSLClient::load_certs calls
// SSL_CTX_set_default_verify_paths when no CA file is set), so a store from caPem would be
// trusted *beside* every system root; client-go trusts only the configured CA. So httplib's
// check is off and each client's SSL_CTX does it in the handshake: SSL_VERIFY_PEER, a store
// holding only caPem's certificates (the system roots when caPem is empty), and the expected
// name (DNS name or IP address) in the context's X509_VERIFY_PARAM.
//
// tlsServerName: httplib connects to, sends as SNI and names in the Host header the host it was
// constructed with. So the client is constructed with tlsServerName, and
// set_hostname_addr_map() maps that name to the address of `host` (resolved here, since httplib
// hands the mapped value to getaddrinfo as a numeric address).
//
// Connections the API server closed. kube-apiserver closes a kept-alive connection idle for 90 s
// with a TLS close_notify; httplib's liveness check peeks at the socket, sees the alert's bytes
// and reuses the connection, so the next request fails ("connection lost while writing"). Two
// defences: a pooled connection idle longer than idleLimit (60 s) is closed instead of reused,
// and a request that fails on a reused connection before any of its answer arrived is sent once
// more on a new connection (Send). An answer has begun when the server has sent application
// data; the TLS message callback (NoteRecord) tells that apart from alerts and session tickets.
#include "cluster/kube_client.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <sys/socket.h>

#include <algorithm>
#include <cctype>
#include <iterator>

#include "cluster/kube_client_impl.h"
#include "common/files.h"

namespace gpugate::cluster {
namespace {

constexpr size_t kMaxIdleClients = 4;

// Why the last handshake on this thread failed verification; set by OpenSSL's callback, which
// runs on the thread doing the request.
thread_local std::string tVerifyError;

// Whether the server has sent application data on this thread since BeginRequest; set by
// OpenSSL's message callback, which runs on the thread reading the answer.
thread_local bool tAnswerBegan = false;

// For every TLS record received: in TLS 1.2 the record header's type says application data; in
// TLS 1.3 every record's outer type does, and the decrypted inner type tells data from alerts
// (close_notify) and handshake messages (session tickets).
void NoteRecord(int writeP, int, int contentType, const void* buf, size_t len, SSL* ssl, void*) {
  if (writeP != 0 || len == 0) return;
  bool tls13 = SSL_version(ssl) >= TLS1_3_VERSION;
  bool typeByte = tls13 ? contentType == SSL3_RT_INNER_CONTENT_TYPE : contentType == SSL3_RT_HEADER;
  if (typeByte && *static_cast<const unsigned char*>(buf) == SSL3_RT_APPLICATION_DATA) {
    tAnswerBegan = true;
  }
}

int RecordVerifyError(int ok, X509_STORE_CTX* ctx) {
  if (!ok && tVerifyError.empty()) {
    tVerifyError = X509_verify_cert_error_string(X509_STORE_CTX_get_error(ctx));
  }
  return ok;
}

bool IsIpAddress(const std::string& host) {
  unsigned char buf[sizeof(in6_addr)];
  return inet_pton(AF_INET, host.c_str(), buf) == 1 || inet_pton(AF_INET6, host.c_str(), buf) == 1;
}

Result<std::string> NumericAddress(const std::string& host) {
  if (IsIpAddress(host)) return host;
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (int rc = getaddrinfo(host.c_str(), nullptr, &hints, &found); rc != 0) {
    return Fail("cannot resolve " + host + ": " + gai_strerror(rc));
  }
  char text[INET6_ADDRSTRLEN] = {};
  const void* addr =
      found->ai_family == AF_INET6
          ? static_cast<const void*>(&reinterpret_cast<sockaddr_in6*>(found->ai_addr)->sin6_addr)
          : static_cast<const void*>(&reinterpret_cast<sockaddr_in*>(found->ai_addr)->sin_addr);
  inet_ntop(found->ai_family, addr, text, sizeof text);
  freeaddrinfo(found);
  return std::string(text);
}

// TCP keepalive, so a peer that vanished without a FIN (node gone) breaks a quiet watch within
// about a minute instead of at the idle timeout.
void SetKeepAlive(socket_t sock) {
  int on = 1, idle = 30, interval = 10, count = 3;
  setsockopt(sock, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof on);
  setsockopt(sock, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
  setsockopt(sock, IPPROTO_TCP, TCP_KEEPINTVL, &interval, sizeof interval);
  setsockopt(sock, IPPROTO_TCP, TCP_KEEPCNT, &count, sizeof count);
}

}  // namespace

void KubeClient::Impl::BeginRequest() {
  tVerifyError.clear();
  tAnswerBegan = false;
  ERR_clear_error();
}

bool KubeClient::Impl::AnswerBegan() { return tAnswerBegan; }

std::chrono::steady_clock::time_point KubeClient::Impl::Now() const {
  return clock ? clock() : std::chrono::steady_clock::now();
}

std::string KubeClient::Impl::Describe(httplib::Error error) {
  switch (error) {
    case httplib::Error::Connection:
      return "cannot connect";
    case httplib::Error::ConnectionTimeout:
      return "connection timed out";
    case httplib::Error::Read:
      return "connection lost or timed out while reading";
    case httplib::Error::Write:
      return "connection lost while writing";
    case httplib::Error::Canceled:
      return "canceled";
    case httplib::Error::SSLServerVerification:
      return "server certificate rejected";
    case httplib::Error::SSLConnection: {
      std::string why = tVerifyError;
      if (why.empty() && ERR_peek_last_error() != 0) {
        const char* reason = ERR_reason_error_string(ERR_peek_last_error());
        why = reason ? reason : "";
      }
      ERR_clear_error();
      return why.empty() ? "TLS handshake failed" : "TLS handshake failed: " + why;
    }
    default:
      return "request failed (" + httplib::to_string(error) + ")";
  }
}

KubeClient::Impl::Impl(const KubeConfig& c)
    : config(c), dialName(c.tlsServerName.empty() ? c.host : c.tlsServerName) {
  if (!c.caPem.empty()) {
    if (auto certs = ParseCertificates(c.caPem)) {
      caCerts = std::move(*certs);
    } else {
      setupError = "certificate authority: " + certs.error().message;
    }
  }
  if (!c.clientCertPem.empty() || !c.clientKeyPem.empty()) {
    auto certs = ParseCertificates(c.clientCertPem);
    auto key = ParsePrivateKey(c.clientKeyPem);
    if (!certs) setupError = "client certificate: " + certs.error().message;
    if (!key) setupError = "client key: " + key.error().message;
    if (certs && key) {
      clientChain = std::move(*certs);
      clientKey = std::move(*key);
    }
  }
}

void KubeClient::Impl::ConfigureTls(httplib::SSLClient& client) const {
  SSL_CTX* ctx = client.ssl_context();
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  SSL_CTX_set_msg_callback(ctx, NoteRecord);
  for (size_t i = 1; i < clientChain.size(); ++i) {
    SSL_CTX_add1_chain_cert(ctx, clientChain[i].get());
  }
  client.enable_server_certificate_verification(false);  // see the top of this file
  if (config.insecureSkipVerify) return;
  if (caCerts.empty()) {
    SSL_CTX_set_default_verify_paths(ctx);
  } else {
    X509_STORE* store = X509_STORE_new();
    for (const auto& cert : caCerts) X509_STORE_add_cert(store, cert.get());
    SSL_CTX_set_cert_store(ctx, store);  // the context owns it now
  }
  X509_VERIFY_PARAM* param = SSL_CTX_get0_param(ctx);
  if (IsIpAddress(dialName)) {
    X509_VERIFY_PARAM_set1_ip_asc(param, dialName.c_str());
  } else {
    X509_VERIFY_PARAM_set1_host(param, dialName.c_str(), dialName.size());
    X509_VERIFY_PARAM_set_hostflags(param, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
  }
  SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, RecordVerifyError);
}

void KubeClient::Impl::SetTimeouts(httplib::SSLClient& client, std::chrono::milliseconds timeout) {
  client.set_connection_timeout(timeout);
  client.set_read_timeout(timeout);
  client.set_write_timeout(timeout);
}

Result<std::unique_ptr<httplib::SSLClient>> KubeClient::Impl::NewClient(
    std::chrono::milliseconds timeout) const {
  if (!setupError.empty()) return Fail(setupError);
  auto client = clientKey ? std::make_unique<httplib::SSLClient>(
                                dialName, config.port, clientChain.front().get(), clientKey.get())
                          : std::make_unique<httplib::SSLClient>(dialName, config.port);
  if (!client->is_valid()) return Fail("cannot set up a TLS client context");
  if (dialName != config.host) {
    auto address = NumericAddress(config.host);
    if (!address) return std::unexpected(address.error());
    client->set_hostname_addr_map({{dialName, *address}});
  }
  ConfigureTls(*client);
  client->set_tcp_nodelay(true);
  client->set_socket_options(SetKeepAlive);
  client->set_keep_alive(true);
  SetTimeouts(*client, timeout);
  return client;
}

Result<KubeClient::Impl::Taken> KubeClient::Impl::Acquire(std::chrono::milliseconds timeout) {
  std::vector<IdleClient> expired;  // closed outside the lock: closing writes a close_notify
  Taken taken;
  {
    std::lock_guard lock(mu);
    auto now = Now();
    auto fresh = std::find_if(idle.begin(), idle.end(),
                              [&](const IdleClient& c) { return now - c.since < idleLimit; });
    std::move(idle.begin(), fresh, std::back_inserter(expired));
    idle.erase(idle.begin(), fresh);
    if (!idle.empty()) {
      taken = {std::move(idle.back().client), true};
      idle.pop_back();
    }
  }
  if (!taken.client) {
    auto made = NewClient(timeout);
    if (!made) return std::unexpected(made.error());
    return Taken{std::move(*made), false};
  }
  SetTimeouts(*taken.client, timeout);
  return taken;
}

void KubeClient::Impl::Release(std::unique_ptr<httplib::SSLClient> client) {
  std::lock_guard lock(mu);
  if (idle.size() < kMaxIdleClients) idle.push_back({std::move(client), Now()});
}

Result<httplib::Headers> KubeClient::Impl::RequestHeaders() {
  httplib::Headers headers{{"Accept", "application/json"}};
  std::string token = config.token;
  if (token.empty() && !config.tokenFile.empty()) {
    // Projected service-account tokens rotate (the kubelet swaps a symlink): re-read the file
    // when what it points at changes; keep the last good token if a read fails mid-swap.
    std::lock_guard lock(tokenMu);
    struct stat now {};
    bool changed = ::stat(config.tokenFile.c_str(), &now) != 0 || fileToken.empty() ||
                   now.st_ino != tokenStat.st_ino || now.st_size != tokenStat.st_size ||
                   now.st_mtim.tv_sec != tokenStat.st_mtim.tv_sec ||
                   now.st_mtim.tv_nsec != tokenStat.st_mtim.tv_nsec;
    if (changed) {
      auto text = ReadFile(config.tokenFile);
      if (!text && fileToken.empty()) return Fail("bearer token: " + text.error().message);
      if (text) {
        fileToken = std::move(*text);
        while (!fileToken.empty() && std::isspace(static_cast<unsigned char>(fileToken.back()))) {
          fileToken.pop_back();
        }
        tokenStat = now;
      }
    }
    token = fileToken;
  }
  if (!token.empty()) headers.emplace("Authorization", "Bearer " + token);
  return headers;
}

std::string KubeClient::Impl::Url(const std::string& path) const {
  bool v6 = config.host.find(':') != std::string::npos;
  return "https://" + (v6 ? "[" + config.host + "]" : config.host) + ":" +
         std::to_string(config.port) + path;
}

httplib::Result KubeClient::Impl::SendOn(httplib::SSLClient& client, const std::string& method,
                                         const std::string& path, const httplib::Headers& headers,
                                         const std::string* body, bool& answerBegan) {
  BeginRequest();
  constexpr char kJson[] = "application/json";
  httplib::Result res = method == "GET"    ? client.Get(path, headers)
                        : method == "POST" ? client.Post(path, headers, *body, kJson)
                        : method == "PUT"  ? client.Put(path, headers, *body, kJson)
                                           : client.Delete(path, headers);
  answerBegan = AnswerBegan();
  return res;
}

// A request that fails on a reused connection before any of its answer arrived is sent once
// more, on a new connection: the server most likely closed the connection while it sat idle
// (after a close_notify the write or the read fails). Sending it again is safe for what gpugate
// sends: a GET; a GPUQuota PUT, which carries the resourceVersion it was read at, so if the first
// one was applied after all, the second gets 409 Conflict and the ledger re-reads (and finds its
// charge), never a double write; a POST that creates the record, whose replay gets 409
// AlreadyExists, handled the same way. Never retried: a request on a new connection (the server
// is unreachable; trying again at once would double the wait), one that used up its timeout
// (the server may be slow, not gone), and one whose answer had begun.
Result<HttpResult> KubeClient::Impl::Send(const std::string& method, const std::string& path,
                                          const std::string* body, const RequestBudget& budget) {
  auto fail = [&](const std::string& why) { return Fail(method + " " + Url(path) + ": " + why); };
  auto left = [&] { return budget.Left(Now()); };
  if (left() <= std::chrono::milliseconds::zero()) return fail("not sent: no time left");
  auto headers = RequestHeaders();
  if (!headers) return fail(headers.error().message);
  const std::chrono::milliseconds given = left();
  auto taken = Acquire(given);
  if (!taken) return fail(taken.error().message);
  auto started = Now();
  bool answerBegan = false;
  httplib::Result res = SendOn(*taken->client, method, path, *headers, body, answerBegan);
  bool retry = !res && taken->reused && !answerBegan && Now() - started < budget.timeout &&
               left() > std::chrono::milliseconds::zero();
  if (retry) {
    ++retries;
    auto made = NewClient(left());  // the failed client and its socket are dropped
    if (!made) return fail(made.error().message);
    taken->client = std::move(*made);
    res = SendOn(*taken->client, method, path, *headers, body, answerBegan);
  }
  if (!res) {  // the client and its socket are dropped
    std::string why = Describe(res.error());
    if (budget.bounded() && left() <= std::chrono::milliseconds::zero()) {
      why = "no answer within " + std::to_string(given.count()) +
            " ms, the time left before the deadline (" + why + ")";
    }
    return fail(why);
  }
  Release(std::move(taken->client));
  return HttpResult{res->status, std::move(res->body), res->get_header_value("Retry-After")};
}

KubeClient::KubeClient(KubeConfig config)
    : config_(std::move(config)), impl_(std::make_unique<Impl>(config_)) {}

KubeClient::~KubeClient() = default;

void KubeClient::set_idle_limit(std::chrono::milliseconds limit) { impl_->idleLimit = limit; }

void KubeClient::set_clock(std::function<std::chrono::steady_clock::time_point()> clock) {
  impl_->clock = std::move(clock);
}

int KubeClient::retries() const { return impl_->retries; }

Result<HttpResult> KubeClient::Request(Method method, const std::string& path,
                                       const std::string& body, Deadline deadline) {
  const bool hasBody = method == Method::kPost || method == Method::kPut;
  return impl_->Send(std::string(MethodName(method)), path, hasBody ? &body : nullptr,
                     {.timeout = requestTimeout_, .deadline = deadline});
}

}  // namespace gpugate::cluster
