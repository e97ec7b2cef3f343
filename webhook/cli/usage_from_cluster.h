// `gpugate usage --kubeconfig` (and the spend `gpugate quota --kubeconfig` shows): the GPU-hour
// usage the cluster's GPUQuota objects record, read straight from the Kubernetes API. Each
// object's status may hold
//   usage:   the namespace's usage book, a JSON object in usage/book_codec.h's form, in the
//            time zone it names ("timeZone");
//   charges: pod name -> [{uid, admitted, amounts, started: "<RFC 3339>"}]: a charge with
//            `started` is a running pod, which accrues from then up to now.
#pragma once

#include <chrono>
#include <nlohmann/json.hpp>
#include <vector>

#include "cluster/api_client.h"
#include "common/result.h"
#include "common/time_zone.h"
#include "usage/usage_book.h"

namespace gpugate::cli {

struct ClusterBooks {
  TimeZone zone = TimeZone::Utc();      // the first book's zone; UTC when no object keeps one
  std::vector<usage::UsageBook> books;  // one per object with status.usage
  std::vector<usage::Accrual> running;  // every started charge, over [started, now)
};

// Adds what GPUQuota `object` records to `into` (its book, its running charges). A malformed
// status.usage or `started`, or a book whose time zone gpugate cannot load, is an error naming
// the object and the field: "GPUQuota team-a/gpugate: status.usage: ...". A charge started at or
// after `now` adds nothing yet.
Status AddRecordedUsage(const nlohmann::json& object, std::chrono::sys_seconds now,
                        ClusterBooks& into);

// Lists every GPUQuota object page by page through `client` and adds each (AddRecordedUsage).
// Errors name the API call or the object.
Result<ClusterBooks> ReadClusterBooks(cluster::ApiClient& client, std::chrono::sys_seconds now);

}  // namespace gpugate::cli
