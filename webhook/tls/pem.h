// PEM text -> OpenSSL objects, for every layer that reads certificates and keys: the serving pair
// and client CA (transport/tls_files.h), kubeconfig CAs and client pairs (cluster), and the
// `--cert`/`--key` of `gpugate quota`. Messages name the problem, never the file: callers prefix
// the file or field they read.
#pragma once

#include <string_view>
#include <vector>

#include "common/result.h"
#include "tls/openssl_ptr.h"

namespace gpugate::tls {

// A read-only memory BIO over `text`, which must outlive it.
BioPtr MemoryBio(std::string_view text);

// Every certificate in `pem`, in order (a leaf, then its intermediates); other PEM blocks are
// skipped. An error when there is none ("no PEM certificate found") or a certificate block does
// not decode ("malformed PEM certificate #2: ...").
Result<std::vector<X509Ptr>> ParseCertificates(std::string_view pem);

// The first private key in `pem` (PKCS#8, PKCS#1 RSA or SEC1 EC), unencrypted: an encrypted key
// fails instead of prompting for a passphrase.
Result<PkeyPtr> ParsePrivateKey(std::string_view pem);

// The thread's queued OpenSSL errors, "; "-joined ("unknown OpenSSL error" when there are none);
// the queue is left empty, so a later failure does not report this one's causes.
std::string DrainOpenSslErrors();

}  // namespace gpugate::tls
