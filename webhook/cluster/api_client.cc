#include "cluster/api_client.h"

namespace gpugate::cluster {

void WatchStop::Stop() {
  std::lock_guard lock(mu_);
  stopped_ = true;
  for (auto& [id, cut] : cuts_) cut();
}

bool WatchStop::stopped() const { return stopped_; }

void WatchStop::Reset() {
  std::lock_guard lock(mu_);
  stopped_ = false;
}

uint64_t WatchStop::Arm(std::function<void()> cut) {
  std::lock_guard lock(mu_);
  if (stopped_) return 0;
  uint64_t id = nextId_++;
  cuts_.emplace(id, std::move(cut));
  return id;
}

void WatchStop::Disarm(uint64_t id) {
  std::lock_guard lock(mu_);
  cuts_.erase(id);
}

std::string_view MethodName(ApiClient::Method method) {
  switch (method) {
    case ApiClient::Method::kGet:
      return "GET";
    case ApiClient::Method::kPost:
      return "POST";
    case ApiClient::Method::kPut:
      return "PUT";
    case ApiClient::Method::kDelete:
      return "DELETE";
  }
  return "GET";
}

}  // namespace gpugate::cluster
