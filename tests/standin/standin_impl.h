// Internal to the stand-in: StandInApiServer's state and request handling, shared by
// standin.cc (HTTPS) and standin_memory.cc (the in-memory client, which calls Serve directly).
#pragma once

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "standin/standin.h"
#include "standin/standin_https.h"
#include "standin/standin_store.h"
#include "standin/standin_tls.h"

namespace gpugate::testing {
namespace standin {

// One watch stream's state, owned by its content provider.
struct WatchStream {
  standin::WatchCursor cursor;
  std::vector<std::string> pending;  // lines to send before anything else
  bool endAfterPending = false;      // the pending lines are a final ERROR event
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  std::chrono::steady_clock::time_point nextBookmark = std::chrono::steady_clock::time_point::max();
  int peerPort = -1;  // the client's, to notice it hang up
};

}  // namespace standin

struct StandInApiServer::Impl {
  explicit Impl(Options o)
      : options(std::move(o)),
        store(options.historyLimit, options.opaqueResourceVersions),
        writeLatency(options.writeLatency) {}

  void Route();
  bool Authorized(const httplib::Request& req, httplib::Response& res);
  bool Injected(const httplib::Request& req, httplib::Response& res);
  void WaitIfHeld(const httplib::Request& req);
  void Reply(httplib::Response& res, int status, const nlohmann::json& body);
  void Fail(httplib::Response& res, const standin::ApiError& error);
  void Answer(httplib::Response& res, int status, const standin::ApiResult<nlohmann::json>& result);
  // A request that passed Authorized: held, delayed, answered by an injected failure or by
  // Handle. `canceled` (in-memory watches; may be null) ends a watch stream when it turns true.
  void Serve(const httplib::Request& req, httplib::Response& res,
             const std::function<bool()>& canceled);
  void Handle(const httplib::Request& req, httplib::Response& res,
              const std::function<bool()>& canceled);
  void HandleList(const httplib::Request& req, httplib::Response& res,
                  const standin::ApiPath& path);
  void HandleWatch(const httplib::Request& req, httplib::Response& res,
                   const standin::ApiPath& path, const std::function<bool()>& canceled);
  bool StreamWatch(standin::WatchStream& watch, httplib::DataSink& sink);

  Options options;
  standin::Store store;
  standin::OpenConnections connections;  // outlives `http`, whose SSLs report to it
  std::unique_ptr<standin::IdleClosingServer> http;
  std::thread thread;
  int port = -1;
  std::atomic<bool> stopped{false};
  std::atomic<bool> listenReturned{false};

  mutable std::mutex countsMu;
  std::map<std::string, int> requests;  // guarded by countsMu
  std::vector<Failure> failures;        // guarded by countsMu; count > 0 each
  int injected = 0;                     // guarded by countsMu
  std::mutex holdMu;
  std::condition_variable holdEnded;
  std::optional<Hold> hold;  // guarded by holdMu
  int heldCount = 0;         // guarded by holdMu
  std::atomic<int> conflicts{0};
  std::atomic<int> watchesOpened{0};
  std::atomic<int> watchesOpen{0};
  std::atomic<int> expireContinues{0};  // continue requests still to answer 410 Expired
  std::atomic<int> continuesExpired{0};
  std::atomic<int> listPages{0};
  // Options::writeLatency, or what SetWriteLatency set since; read by every write.
  std::atomic<std::chrono::milliseconds> writeLatency;
};

}  // namespace gpugate::testing
