// Test support for the cluster library's tests (named like quota/testing.h and
// transport/testing.h; tests only): what an informer delivers, recorded for the informer's tests
// (informer_test.cc, informer_paging_test.cc).
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "cluster/informer.h"

namespace gpugate::cluster::testing {

using nlohmann::json;
using namespace std::chrono_literals;

inline json Pod(const std::string& name) {
  return {{"apiVersion", "v1"}, {"kind", "Pod"}, {"metadata", {{"name", name}}}, {"spec", {}}};
}

inline std::string Rv(const json& object) { return object["metadata"]["resourceVersion"]; }

// A list answer in the mirror's rendering ("a@2 b@3", by name), or "no list".
inline std::string Rendered(const Result<HttpResult>& list) {
  if (!list || list->status != 200) return "no list";
  std::map<std::string, std::string> objects;
  json parsed = json::parse(list->body);
  for (const json& item : parsed["items"]) objects[item["metadata"]["name"]] = Rv(item);
  std::string out;
  for (const auto& [name, rv] : objects) out += (out.empty() ? "" : " ") + name + "@" + rv;
  return out;
}

// What an informer's handlers saw: the objects (name -> resourceVersion) and a log of calls
// ("LIST 2", "ADDED a@3"). Handlers run on the informer's thread; tests read under the lock.
class Mirror {
 public:
  // Runs once, on the informer's thread, when the first object of a list arrives: between the
  // list's first page and the next. Set before the informer starts.
  std::function<void()> duringList;

  InformerHandlers Handlers() {
    return {.onList =
                [this] {
                  auto items = std::make_shared<std::vector<json>>();
                  auto add = [this, items](json item) {
                    if (duringList) std::exchange(duringList, nullptr)();
                    items->push_back(std::move(item));
                  };
                  return MakeListSink(add, [this, items] { Listed(*items); });
                },
            .onEvent =
                [this](const WatchEvent& event) {
                  static const char* kNames[] = {"ADDED", "MODIFIED", "DELETED"};
                  std::lock_guard lock(mu_);
                  std::string name = event.object["metadata"]["name"];
                  if (event.type == WatchEvent::Type::kDeleted) {
                    objects_.erase(name);
                  } else {
                    objects_[name] = Rv(event.object);
                  }
                  log_.push_back(std::string(kNames[int(event.type)]) + " " + name + "@" +
                                 Rv(event.object));
                  changed_.notify_all();
                },
            .onError =
                [this](const std::string& message) {
                  std::lock_guard lock(mu_);
                  errors_.push_back(message);
                  changed_.notify_all();
                }};
  }

  // Waits up to 5 s for `done` (checked on every handler call and every 10 ms).
  bool WaitFor(const std::function<bool()>& done) {
    auto deadline = std::chrono::steady_clock::now() + 5s;
    std::unique_lock lock(mu_);
    while (true) {
      lock.unlock();
      if (done()) return true;
      lock.lock();
      if (std::chrono::steady_clock::now() >= deadline) return false;
      changed_.wait_for(lock, 10ms);
    }
  }

  std::string Objects() const {
    std::lock_guard lock(mu_);
    std::string out;
    for (const auto& [name, rv] : objects_) out += (out.empty() ? "" : " ") + name + "@" + rv;
    return out;
  }
  std::vector<std::string> Log() const {
    std::lock_guard lock(mu_);
    return log_;
  }
  std::vector<std::string> Errors() const {
    std::lock_guard lock(mu_);
    return errors_;
  }

 private:
  void Listed(const std::vector<json>& items) {
    std::lock_guard lock(mu_);
    objects_.clear();
    for (const json& item : items) objects_[item["metadata"]["name"]] = Rv(item);
    log_.push_back("LIST " + std::to_string(items.size()));
    changed_.notify_all();
  }

  mutable std::mutex mu_;
  std::condition_variable changed_;
  std::map<std::string, std::string> objects_;
  std::vector<std::string> log_;
  std::vector<std::string> errors_;
};

}  // namespace gpugate::cluster::testing
