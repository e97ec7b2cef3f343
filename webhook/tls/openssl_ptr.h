// Owning pointers for OpenSSL objects, one home for every layer that holds them (certs, cluster,
// transport): an early `return Fail(...)` frees whatever was built so far.
#pragma once

#include <openssl/asn1.h>
#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <memory>

namespace gpugate::tls {

// Calls `Free` (X509_free, EVP_PKEY_free, ...) on the pointer a unique_ptr owns.
template <auto Free>
struct Deleter {
  template <typename T>
  void operator()(T* p) const {
    Free(p);
  }
};

// Stacks own their elements: freeing one frees what it holds.
inline void FreeCertificateStack(STACK_OF(X509) * s) { sk_X509_pop_free(s, X509_free); }
inline void FreeNameStack(STACK_OF(X509_NAME) * s) { sk_X509_NAME_pop_free(s, X509_NAME_free); }

using X509Ptr = std::unique_ptr<X509, Deleter<X509_free>>;
using PkeyPtr = std::unique_ptr<EVP_PKEY, Deleter<EVP_PKEY_free>>;
using BioPtr = std::unique_ptr<BIO, Deleter<BIO_free_all>>;
using BignumPtr = std::unique_ptr<BIGNUM, Deleter<BN_free>>;
using Asn1StringPtr = std::unique_ptr<ASN1_STRING, Deleter<ASN1_STRING_free>>;
using ExtensionPtr = std::unique_ptr<X509_EXTENSION, Deleter<X509_EXTENSION_free>>;
using GeneralNamePtr = std::unique_ptr<GENERAL_NAME, Deleter<GENERAL_NAME_free>>;
using GeneralNamesPtr = std::unique_ptr<GENERAL_NAMES, Deleter<GENERAL_NAMES_free>>;
using X509StorePtr = std::unique_ptr<X509_STORE, Deleter<X509_STORE_free>>;
using X509StoreCtxPtr = std::unique_ptr<X509_STORE_CTX, Deleter<X509_STORE_CTX_free>>;
using CertificateStackPtr = std::unique_ptr<STACK_OF(X509), Deleter<FreeCertificateStack>>;
using NameStackPtr = std::unique_ptr<STACK_OF(X509_NAME), Deleter<FreeNameStack>>;
using MdCtxPtr = std::unique_ptr<EVP_MD_CTX, Deleter<EVP_MD_CTX_free>>;
using SslCtxPtr = std::unique_ptr<SSL_CTX, Deleter<SSL_CTX_free>>;
using SslPtr = std::unique_ptr<SSL, Deleter<SSL_free>>;

}  // namespace gpugate::tls
