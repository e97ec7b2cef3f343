#include "cluster/group_commit.h"

#include <algorithm>

namespace gpugate::cluster {

struct GroupCommit::Waiter {
  LedgerOp op;  // owned here: the batch may still read it after its submitter left
  quota::Deadline deadline;
  WaiterState state = WaiterState::kQueued;      // transitions: group_commit.h
  std::vector<WaiterPtr> batch;                  // kLeading: the batch its thread applies
  std::optional<Result<LedgerOpResult>> result;  // kAnswered
};

GroupCommit::GroupCommit(Apply apply, size_t maxBatch)
    : apply_(std::move(apply)), maxBatch_(std::max<size_t>(1, maxBatch)) {}

GroupCommit::Queue& GroupCommit::QueueFor(std::string_view ns) {
  auto it = queues_.find(ns);
  if (it == queues_.end()) it = queues_.emplace(std::string(ns), std::make_unique<Queue>()).first;
  return *it->second;
}

Result<LedgerOpResult> GroupCommit::Submit(std::string_view ns, LedgerOp op,
                                           quota::Deadline deadline) {
  auto self = std::make_shared<Waiter>(Waiter{.op = std::move(op), .deadline = deadline});
  std::unique_lock lock(mu_);
  Queue& q = QueueFor(ns);
  q.pending.push_back(self);
  if (!q.applying) FormBatch(ns, q);
  for (;;) {
    if (self->state == WaiterState::kAnswered) return std::move(*self->result);
    if (self->state == WaiterState::kLeading) {
      Execute(ns, q, *self, lock);
      continue;
    }
    if (std::chrono::steady_clock::now() >= deadline) {
      if (self->state == WaiterState::kInBatch) {
        return Fail("no time left: the write of " + std::string(ns) +
                    "'s GPUQuota carrying this change was still waiting on the Kubernetes API");
      }
      q.pending.erase(std::find(q.pending.begin(), q.pending.end(), self));
      return Fail("no time left: waited behind this replica's other changes to " + std::string(ns) +
                  "'s GPUQuota, which were waiting on the Kubernetes API");
    }
    q.changed.wait_until(lock, deadline);
  }
}

// Takes the queued waiters (those whose deadline has passed are answered instead) and hands the
// batch to the member with the latest deadline.
void GroupCommit::FormBatch(std::string_view ns, Queue& q) {
  std::vector<WaiterPtr> batch;
  const auto now = std::chrono::steady_clock::now();
  while (!q.pending.empty() && batch.size() < maxBatch_) {
    WaiterPtr w = std::move(q.pending.front());
    q.pending.pop_front();
    if (now >= w->deadline) {
      w->result = Fail("no time left: the deadline passed before " + std::string(ns) +
                       "'s GPUQuota could be written");
      w->state = WaiterState::kAnswered;
      continue;
    }
    w->state = WaiterState::kInBatch;
    batch.push_back(std::move(w));
  }
  if (!batch.empty()) {
    auto executor = std::max_element(batch.begin(), batch.end(), [](const auto& a, const auto& b) {
      return a->deadline < b->deadline;
    });
    Waiter& chosen = **executor;
    chosen.state = WaiterState::kLeading;
    chosen.batch = std::move(batch);
    q.applying = true;
  }
  q.changed.notify_all();
}

// With mu_ held on entry and exit; released while the batch is applied.
void GroupCommit::Execute(std::string_view ns, Queue& q, Waiter& self,
                          std::unique_lock<std::mutex>& lock) {
  std::vector<WaiterPtr> batch = std::move(self.batch);
  self.batch.clear();
  std::vector<const LedgerOp*> ops;
  ops.reserve(batch.size());
  for (const WaiterPtr& w : batch) ops.push_back(&w->op);
  ++stats_.batches;
  stats_.ops += ops.size();
  stats_.largest = std::max(stats_.largest, ops.size());
  lock.unlock();
  std::vector<Result<LedgerOpResult>> results;
  try {
    results = apply_(ns, ops, self.deadline);
  } catch (const std::exception& e) {  // the members must never wait for a batch that is gone
    results.assign(ops.size(), Fail(std::string("applying the changes failed: ") + e.what()));
  }
  lock.lock();
  for (size_t i = 0; i < batch.size(); ++i) {
    batch[i]->result = i < results.size()
                           ? std::move(results[i])
                           : Result<LedgerOpResult>(Fail("no result for this change"));
    batch[i]->state = WaiterState::kAnswered;
  }
  q.applying = false;
  FormBatch(ns, q);  // the next batch, from what queued meanwhile; wakes everyone
}

GroupCommit::Stats GroupCommit::stats() const {
  std::lock_guard lock(mu_);
  Stats out = stats_;
  for (const auto& [ns, q] : queues_) out.queued += q->pending.size();
  return out;
}

}  // namespace gpugate::cluster
