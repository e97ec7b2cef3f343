#include "cli/quota_backend.h"

#include "cli/api_access.h"
#include "quota/journal.h"
#include "quota/ledger.h"
#include "transport/log.h"

namespace gpugate::cli {
namespace {

Result<std::unique_ptr<quota::Accounting>> OpenLocal(const config::Config& config,
                                                     usage::UsageKeeper& usage) {
  std::unique_ptr<quota::Journal> journal;
  if (!config.quota.stateFile.empty()) {
    auto opened = quota::OpenFileJournal(config.quota.stateFile);
    if (!opened) return Fail("quota.stateFile: " + opened.error().message);
    journal = std::move(*opened);
  }
  auto ledger = std::make_unique<quota::Ledger>(config.quota, std::move(journal),
                                                quota::LedgerOptions{.usage = &usage});
  if (auto ok = ledger->Open(); !ok) return Fail("quota.stateFile: " + ok.error().message);
  return std::unique_ptr<quota::Accounting>(std::move(ledger));
}

}  // namespace

Result<std::unique_ptr<QuotaBackend>> QuotaBackend::Open(const config::Config& config) {
  std::unique_ptr<QuotaBackend> backend(new QuotaBackend());
  if (!config.cluster.enabled) {
    auto keeper = usage::UsageKeeper::Create(config.usage, [](const std::string& message) {
      transport::LogLine("usage").Str("error", message).Warn();
    });
    if (!keeper) return std::unexpected(keeper.error());
    backend->usage_ = std::move(*keeper);
    backend->view_ = backend->usage_.get();
    auto local = OpenLocal(config, *backend->usage_);
    if (!local) return std::unexpected(local.error());
    backend->accounting_ = std::move(*local);
    return backend;
  }
  if (!config.quota.stateFile.empty()) {
    return Fail(
        "quota.stateFile is the local ledger's file and is not used in cluster mode "
        "(--kubeconfig or cluster.enabled); remove it");
  }
  auto access = ApiAccess(config.cluster);
  if (!access) return std::unexpected(access.error());
  backend->client_ = std::make_unique<cluster::KubeClient>(std::move(*access));
  backend->client_->set_idle_limit(config.cluster.idleConnectionTimeout);
  cluster::ClusterOptions options;
  options.reservationGrace = config.cluster.reservationGrace;
  options.reconcileInterval = config.cluster.reconcileInterval;
  options.maxRecordBytes = static_cast<size_t>(config.cluster.maxGpuQuotaBytes);
  options.onError = [](const std::string& message) {
    transport::LogLine("cluster").Str("error", message).Warn();
  };
  auto book = cluster::BookSettingsFor(config.usage);
  if (!book) return std::unexpected(book.error());
  options.usage = std::move(*book);
  auto ledger = std::make_unique<cluster::ClusterLedger>(*backend->client_, config.quota,
                                                         config.policy, options);
  auto usage = cluster::ClusterUsage::Create(*ledger, config.usage, [](const std::string& message) {
    transport::LogLine("usage").Str("error", message).Warn();
  });
  if (!usage) return std::unexpected(usage.error());
  backend->clusterUsage_ = std::move(*usage);
  backend->view_ = backend->clusterUsage_.get();
  // Budgets from GPUBudget objects first, the config's behind them (cluster/gpu_budget.h).
  backend->budgets_ = std::make_unique<cluster::GpuBudgets>(
      *backend->client_, config.usage, [](const std::string& message) {
        transport::LogLine("budgets").Str("error", message).Warn();
      });
  backend->clusterUsage_->SetBudgets(
      [budgets = backend->budgets_.get()](std::string_view ns) { return budgets->For(ns); });
  backend->budgets_->Start();
  ledger->Start();
  backend->accounting_ = std::move(ledger);
  return backend;
}

QuotaBackend::~QuotaBackend() {
  view_ = nullptr;
  clusterUsage_.reset();  // reads the ledger's records and the budgets
  budgets_.reset();       // stops its watch before the client goes
  accounting_.reset();    // the cluster ledger stops its threads before the client goes
  client_.reset();
}

}  // namespace gpugate::cli
