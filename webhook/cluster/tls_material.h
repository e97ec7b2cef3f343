// PEM parsing for the Kubernetes API client: CA bundles, client certificates and keys. Used by
// the config loaders (so a bad kubeconfig fails at start-up, naming the field) and by the client.
// The parsing and the owning pointers are the tls layer's (tls/pem.h), shared with the serving
// side; these names keep the cluster layer's callers as they were.
#pragma once

#include "tls/pem.h"

namespace gpugate::cluster {

using tls::ParseCertificates;
using tls::ParsePrivateKey;
using tls::PkeyPtr;
using tls::X509Ptr;

}  // namespace gpugate::cluster
