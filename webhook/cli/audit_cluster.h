// `gpugate audit`'s reading of a cluster: the namespaces' labels, the limits (config and
// ResourceQuotas) and recorded use (GPUQuota objects), then every object of every kind with pod
// specs, each collection listed in pages (cluster/list_pager.h) and judged object by object, so
// memory holds one page and the findings, never a whole list.
#pragma once

#include <cstddef>
#include <string>

#include "cli/audit_report.h"
#include "cluster/kube_client.h"
#include "common/result.h"
#include "config/config.h"

namespace gpugate::cli {

struct AuditOptions {
  policy::Settings settings;
  quota::QuotaConfig quota;
  config::AuditConfig audit;
  std::string ns;  // only this namespace; "" for every namespace
  size_t pageSize = 500;
};

// Lists and judges everything. A collection that cannot be listed (403, say) is an error in the
// report, and the rest is still listed; a collection this cluster does not serve (404) is a
// note. An error only when the API cannot be used at all: no answer, credentials refused (401),
// or the namespace asked for does not exist.
Result<AuditReport> AuditCluster(cluster::KubeClient& client, const AuditOptions& options);

}  // namespace gpugate::cli
