// Issues the CA and server certificates with OpenSSL 3. Every OpenSSL object lives in a
// unique_ptr (tls/openssl_ptr.h), so an early `return Fail(...)` frees whatever was built so far.
#include "certs/certificates.h"

#include <arpa/inet.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <algorithm>
#include <memory>
#include <string_view>
#include <utility>

#include "tls/openssl_ptr.h"
#include "tls/pem.h"

namespace gpugate::certs {
namespace {

constexpr int kMaxDays = 36500;
// RFC 5280 upper bound for a commonName; OpenSSL refuses longer ones.
constexpr size_t kMaxCommonName = 64;

using tls::Asn1StringPtr;
using tls::BignumPtr;
using tls::BioPtr;
using tls::ExtensionPtr;
using tls::GeneralNamePtr;
using tls::GeneralNamesPtr;
using tls::PkeyPtr;
using tls::X509Ptr;

// "<what>: <every queued OpenSSL error>", draining the thread's error queue.
std::unexpected<Error> OpenSslFailure(std::string_view what) {
  return Fail(std::string(what) + ": " + tls::DrainOpenSslErrors());
}

bool IsAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

// RFC 1123 label as Kubernetes uses it for Service and Namespace names.
bool IsDnsLabel(std::string_view s) {
  if (s.empty() || s.size() > 63 || !IsAlnum(s.front()) || !IsAlnum(s.back())) return false;
  for (char c : s) {
    if (!IsAlnum(c) && c != '-') return false;
  }
  return true;
}

// A DNS SAN: dot-separated labels (a leading "*." wildcard allowed), at most 253 characters.
// Case-insensitive, since names compare that way in X.509 matching.
bool IsDnsName(std::string_view s) {
  if (s.starts_with("*.")) s.remove_prefix(2);
  if (s.empty() || s.size() > 253) return false;
  std::string lower(s);
  for (char& c : lower) c = (c >= 'A' && c <= 'Z') ? char(c - 'A' + 'a') : c;
  std::string_view rest = lower;
  for (size_t dot; (dot = rest.find('.')) != std::string_view::npos; rest.remove_prefix(dot + 1)) {
    if (!IsDnsLabel(rest.substr(0, dot))) return false;
  }
  return IsDnsLabel(rest);
}

// The address bytes when `host` is an IPv4 or IPv6 literal, else empty.
std::string ParseIp(const std::string& host) {
  unsigned char bytes[16];
  if (inet_pton(AF_INET, host.c_str(), bytes) == 1) return std::string(bytes, bytes + 4);
  if (inet_pton(AF_INET6, host.c_str(), bytes) == 1) return std::string(bytes, bytes + 16);
  return "";
}

std::unexpected<Error> NotALabel(const std::string& flag, const std::string& value) {
  return Fail(flag +
              " must be an RFC 1123 label (lowercase letters, digits and '-', starting and ending "
              "with a letter or digit, at most 63 characters), got \"" +
              value + "\"");
}

Status ValidateOptions(const CertOptions& options) {
  if (!IsDnsLabel(options.service)) return NotALabel("--service", options.service);
  if (!IsDnsLabel(options.ns)) return NotALabel("--namespace", options.ns);
  if (options.days < 1 || options.days > kMaxDays) {
    return Fail("--days must be between 1 and " + std::to_string(kMaxDays) + ", got " +
                std::to_string(options.days));
  }
  for (const std::string& host : options.extraHosts) {
    if (ParseIp(host).empty() && !IsDnsName(host)) {
      return Fail("extra host \"" + host + "\" is neither an IP address nor a DNS name");
    }
  }
  const std::string& client = options.clientName;
  bool printable =
      std::all_of(client.begin(), client.end(), [](char c) { return c >= ' ' && c <= '~'; });
  if (!options.clientName.empty() && (client.size() > kMaxCommonName || !printable)) {
    return Fail("--client must be 1 to 64 printable ASCII characters, got \"" + client + "\"");
  }
  return {};
}

Result<PkeyPtr> GenerateP256Key() {
  PkeyPtr key(EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256"));
  if (!key) return OpenSslFailure("generating EC P-256 key");
  return key;
}

// 128 random bits; the low bit is forced so the serial is never zero (RFC 5280 wants it
// positive), leaving 127 bits of entropy, well above the 64 the CA/B baseline asks for.
Status SetRandomSerial(X509* cert) {
  BignumPtr bn(BN_new());
  if (!bn || BN_rand(bn.get(), 128, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ODD) != 1) {
    return OpenSslFailure("generating serial number");
  }
  if (BN_to_ASN1_INTEGER(bn.get(), X509_get_serialNumber(cert)) == nullptr) {
    return OpenSslFailure("setting serial number");
  }
  return {};
}

// A v3 certificate for `key` with a fresh serial, subject CN=`commonName`, valid from an hour
// ago (tolerating clock skew between this host and the API server) until `days` from now.
Result<X509Ptr> NewCertificate(const std::string& commonName, EVP_PKEY* key, int days) {
  X509Ptr cert(X509_new());
  if (!cert || X509_set_version(cert.get(), X509_VERSION_3) != 1) {
    return OpenSslFailure("creating certificate");
  }
  if (Status s = SetRandomSerial(cert.get()); !s) return std::unexpected(s.error());
  if (X509_gmtime_adj(X509_getm_notBefore(cert.get()), -60 * 60) == nullptr ||
      X509_time_adj_ex(X509_getm_notAfter(cert.get()), days, 0, nullptr) == nullptr) {
    return OpenSslFailure("setting validity period");
  }
  X509_NAME* subject = X509_get_subject_name(cert.get());
  auto cn = reinterpret_cast<const unsigned char*>(commonName.c_str());
  if (X509_NAME_add_entry_by_txt(subject, "CN", MBSTRING_UTF8, cn, -1, -1, 0) != 1) {
    return OpenSslFailure("setting subject CN=" + commonName);
  }
  if (X509_set_pubkey(cert.get(), key) != 1) return OpenSslFailure("setting public key");
  return cert;
}

// Adds one extension written in openssl.cnf syntax. `issuer` supplies the authority key id.
Status AddExtension(X509* cert, X509* issuer, int nid, const char* value) {
  X509V3_CTX ctx;
  X509V3_set_ctx_nodb(&ctx);
  X509V3_set_ctx(&ctx, issuer, cert, nullptr, nullptr, 0);
  ExtensionPtr ext(X509V3_EXT_nconf_nid(nullptr, &ctx, nid, value));
  // X509_add_ext copies the extension, so `ext` is still ours to free.
  if (!ext || X509_add_ext(cert, ext.get(), -1) != 1) {
    return OpenSslFailure(std::string("adding extension ") + OBJ_nid2sn(nid) + "=" + value);
  }
  return {};
}

// An IP SAN for an address literal, else a DNS SAN. Both values are ASN1_STRINGs that differ
// only in type (OCTET STRING vs IA5String).
Result<GeneralNamePtr> MakeGeneralName(const std::string& host) {
  std::string ip = ParseIp(host);
  const std::string& bytes = ip.empty() ? host : ip;
  GeneralNamePtr name(GENERAL_NAME_new());
  Asn1StringPtr value(ASN1_STRING_type_new(ip.empty() ? V_ASN1_IA5STRING : V_ASN1_OCTET_STRING));
  if (!name || !value || ASN1_STRING_set(value.get(), bytes.data(), int(bytes.size())) != 1) {
    return OpenSslFailure("encoding subjectAltName " + host);
  }
  GENERAL_NAME_set0_value(name.get(), ip.empty() ? GEN_DNS : GEN_IPADD, value.release());
  return name;
}

Status AddSubjectAltNames(X509* cert, const std::vector<std::string>& hosts) {
  GeneralNamesPtr names(sk_GENERAL_NAME_new_null());
  if (!names) return OpenSslFailure("allocating subjectAltName");
  for (const std::string& host : hosts) {
    Result<GeneralNamePtr> name = MakeGeneralName(host);
    if (!name) return std::unexpected(name.error());
    if (sk_GENERAL_NAME_push(names.get(), name->get()) == 0) {
      return OpenSslFailure("adding subjectAltName " + host);
    }
    name->release();  // now owned by `names`
  }
  if (X509_add1_ext_i2d(cert, NID_subject_alt_name, names.get(), 0, X509V3_ADD_DEFAULT) != 1) {
    return OpenSslFailure("adding subjectAltName extension");
  }
  return {};
}

Result<std::string> DrainBio(BIO* bio, std::string_view what) {
  char* data = nullptr;
  long size = BIO_get_mem_data(bio, &data);
  if (size <= 0) return OpenSslFailure(what);
  return std::string(data, static_cast<size_t>(size));
}

Result<std::string> CertificatePem(X509* cert) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (!bio || PEM_write_bio_X509(bio.get(), cert) != 1) {
    return OpenSslFailure("encoding certificate PEM");
  }
  return DrainBio(bio.get(), "encoding certificate PEM");
}

// PKCS#8 ("BEGIN PRIVATE KEY"), unencrypted: the form Kubernetes TLS secrets and most servers
// accept for any key type.
Result<std::string> PrivateKeyPem(EVP_PKEY* key) {
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (!bio ||
      PEM_write_bio_PrivateKey(bio.get(), key, nullptr, nullptr, 0, nullptr, nullptr) != 1) {
    return OpenSslFailure("encoding private key PEM");
  }
  return DrainBio(bio.get(), "encoding private key PEM");
}

Status Sign(X509* cert, EVP_PKEY* issuerKey) {
  if (X509_sign(cert, issuerKey, EVP_sha256()) <= 0) return OpenSslFailure("signing certificate");
  return {};
}

struct Issued {
  PkeyPtr key;
  X509Ptr cert;
};

Result<Issued> IssueCa(int days) {
  Result<PkeyPtr> key = GenerateP256Key();
  if (!key) return std::unexpected(key.error());
  Result<X509Ptr> cert = NewCertificate("gpugate-ca", key->get(), days);
  if (!cert) return std::unexpected(cert.error());
  X509* ca = cert->get();
  X509_set_issuer_name(ca, X509_get_subject_name(ca));
  for (auto [nid, value] : {std::pair{NID_basic_constraints, "critical,CA:TRUE"},
                            std::pair{NID_key_usage, "critical,keyCertSign,cRLSign"},
                            std::pair{NID_subject_key_identifier, "hash"}}) {
    if (Status s = AddExtension(ca, ca, nid, value); !s) return std::unexpected(s.error());
  }
  if (Status s = Sign(ca, key->get()); !s) return std::unexpected(s.error());
  return Issued{std::move(*key), std::move(*cert)};
}

std::vector<std::string> ServerSans(const CertOptions& options) {
  const std::string qualified = options.service + "." + options.ns;
  std::vector<std::string> sans = {options.service, qualified, qualified + ".svc",
                                   qualified + ".svc.cluster.local"};
  sans.insert(sans.end(), options.extraHosts.begin(), options.extraHosts.end());
  return sans;
}

// The CN is informational (clients match SANs), but a 63+63 character service and namespace
// exceed its 64-character limit; fall back to the bare service name rather than refuse.
std::string ServerCommonName(const CertOptions& options) {
  std::string cn = options.service + "." + options.ns + ".svc";
  return cn.size() <= kMaxCommonName ? cn : options.service;
}

// A leaf certificate signed by `ca`: not a CA, digitalSignature only (ECDSA keys only sign during
// the handshake), `purpose` as its extended key usage, and `sans` as its subject alternative names
// when there are any.
Result<Issued> IssueLeaf(const std::string& commonName, const char* purpose,
                         const std::vector<std::string>& sans, int days, const Issued& ca) {
  Result<PkeyPtr> key = GenerateP256Key();
  if (!key) return std::unexpected(key.error());
  Result<X509Ptr> cert = NewCertificate(commonName, key->get(), days);
  if (!cert) return std::unexpected(cert.error());
  X509* leaf = cert->get();
  if (X509_set_issuer_name(leaf, X509_get_subject_name(ca.cert.get())) != 1) {
    return OpenSslFailure("setting issuer name");
  }
  for (auto [nid, value] :
       {std::pair{NID_basic_constraints, "critical,CA:FALSE"},
        std::pair{NID_key_usage, "critical,digitalSignature"},
        std::pair{NID_ext_key_usage, purpose}, std::pair{NID_subject_key_identifier, "hash"},
        std::pair{NID_authority_key_identifier, "keyid:always"}}) {
    if (Status s = AddExtension(leaf, ca.cert.get(), nid, value); !s) {
      return std::unexpected(s.error());
    }
  }
  if (!sans.empty()) {
    if (Status s = AddSubjectAltNames(leaf, sans); !s) return std::unexpected(s.error());
  }
  if (Status s = Sign(leaf, ca.key.get()); !s) return std::unexpected(s.error());
  return Issued{std::move(*key), std::move(*cert)};
}

Result<Issued> IssueServer(const CertOptions& options, const std::vector<std::string>& sans,
                           const Issued& ca) {
  return IssueLeaf(ServerCommonName(options), "serverAuth", sans, options.days, ca);
}

// A certificate for a TLS client: no SANs (a server identifies its callers by the CA that signed
// them, and by the CN if it wants a name), and a purpose OpenSSL and Go check on the server side.
Result<Issued> IssueClient(const CertOptions& options, const Issued& ca) {
  return IssueLeaf(options.clientName, "clientAuth", {}, options.days, ca);
}

// The certificate's and key's PEMs into `certPem` and `keyPem`.
Status EncodePair(const Issued& issued, std::string& certPem, std::string& keyPem) {
  Result<std::string> cert = CertificatePem(issued.cert.get());
  if (!cert) return std::unexpected(cert.error());
  Result<std::string> key = PrivateKeyPem(issued.key.get());
  if (!key) return std::unexpected(key.error());
  certPem = std::move(*cert);
  keyPem = std::move(*key);
  return {};
}

Status EncodePems(const Issued& ca, const Issued& server, CertBundle& bundle) {
  Result<std::string> caPem = CertificatePem(ca.cert.get());
  if (!caPem) return std::unexpected(caPem.error());
  bundle.caCertPem = std::move(*caPem);
  return EncodePair(server, bundle.serverCertPem, bundle.serverKeyPem);
}

}  // namespace

Result<CertBundle> IssueCertificates(const CertOptions& options) {
  if (Status s = ValidateOptions(options); !s) return std::unexpected(s.error());
  ERR_clear_error();  // so failure messages carry only this call's causes
  Result<Issued> ca = IssueCa(options.days);
  if (!ca) return std::unexpected(ca.error());
  CertBundle bundle;
  bundle.sans = ServerSans(options);
  Result<Issued> server = IssueServer(options, bundle.sans, *ca);
  if (!server) return std::unexpected(server.error());
  if (Status s = EncodePems(*ca, *server, bundle); !s) return std::unexpected(s.error());
  if (!options.clientName.empty()) {
    Result<Issued> client = IssueClient(options, *ca);
    if (!client) return std::unexpected(client.error());
    Status s = EncodePair(*client, bundle.clientCertPem, bundle.clientKeyPem);
    if (!s) return std::unexpected(s.error());
  }
  return bundle;
}

}  // namespace gpugate::certs
