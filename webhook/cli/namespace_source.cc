#include "cli/namespace_source.h"

#include "cli/api_access.h"
#include "transport/log.h"

namespace gpugate::cli {

Result<std::unique_ptr<NamespaceSource>> NamespaceSource::Open(const config::Config& config) {
  if (!config.cluster.enabled) return std::unique_ptr<NamespaceSource>();
  auto access = ApiAccess(config.cluster);
  if (!access) return std::unexpected(access.error());
  std::unique_ptr<NamespaceSource> source(new NamespaceSource());
  source->client_ = std::make_unique<cluster::KubeClient>(std::move(*access));
  source->client_->set_idle_limit(config.cluster.idleConnectionTimeout);
  source->watch_ =
      std::make_unique<cluster::NamespaceWatch>(*source->client_, [](const std::string& message) {
        transport::LogLine("namespaces").Str("error", message).Warn();
      });
  source->watch_->Start();
  return source;
}

NamespaceSource::~NamespaceSource() {
  watch_.reset();
  client_.reset();
}

}  // namespace gpugate::cli
