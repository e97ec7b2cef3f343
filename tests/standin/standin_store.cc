#include "standin/standin_store.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <random>

#include "common/base64.h"

namespace gpugate::testing::standin {
namespace {

using nlohmann::json;

std::mt19937_64& Random() {
  thread_local std::mt19937_64 engine{std::random_device{}()};
  return engine;
}

// A random (version 4) UUID, as the API server assigns to metadata.uid.
std::string NewUid() {
  std::uniform_int_distribution<int> digit(0, 15);
  std::string uid = "xxxxxxxx-xxxx-4xxx-8xxx-xxxxxxxxxxxx";
  for (char& c : uid) {
    if (c == 'x') c = "0123456789abcdef"[digit(Random())];
  }
  return uid;
}

std::string NowRfc3339() {
  std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

// Kinds of the resources gpugate reads; any other resource gets its name, singular, capitalised.
std::string GuessKind(const std::string& resource) {
  static const std::map<std::string, std::string> known = {{"pods", "Pod"},
                                                           {"nodes", "Node"},
                                                           {"namespaces", "Namespace"},
                                                           {"configmaps", "ConfigMap"},
                                                           {"leases", "Lease"},
                                                           {"events", "Event"},
                                                           {"gpuquotas", "GPUQuota"},
                                                           {"resourcequotas", "ResourceQuota"}};
  if (auto it = known.find(resource); it != known.end()) return it->second;
  std::string kind = resource;
  if (kind.ends_with('s')) kind.pop_back();
  if (!kind.empty()) kind[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(kind[0])));
  return kind;
}

std::string StringAt(const json& object, const char* field) {
  auto meta = object.find("metadata");
  if (meta == object.end() || !meta->is_object()) return "";
  auto value = meta->find(field);
  return value != meta->end() && value->is_string() ? value->get<std::string>() : "";
}

bool Watches(const ApiPath& filter, const ApiPath& where) {
  return filter.prefix == where.prefix && filter.resource == where.resource &&
         (filter.ns.empty() || filter.ns == where.ns);
}

ApiError BadRequest(std::string message) { return {400, "BadRequest", std::move(message), {}}; }

// The body's namespace and name, when present, must agree with the path's.
std::optional<ApiError> Mismatch(const ApiPath& path, const json& object) {
  std::string ns = StringAt(object, "namespace");
  if (!path.ns.empty() && !ns.empty() && ns != path.ns) {
    return BadRequest(
        "the namespace of the provided object does not match the namespace sent on "
        "the request");
  }
  std::string name = StringAt(object, "name");
  if (!path.name.empty() && !name.empty() && name != path.name) {
    return BadRequest("the name of the object (" + name + ") does not match the name on the URL (" +
                      path.name + ")");
  }
  return std::nullopt;
}

}  // namespace

Store::Store(size_t historyLimit, bool opaqueVersions)
    : historyLimit_(std::max<size_t>(historyLimit, 1)), opaqueVersions_(opaqueVersions) {}

// Opaque versions scramble the revision so that they neither parse as numbers nor sort in the
// order they were issued, in numbers or as text: a client may only compare them for equality.
constexpr uint64_t kVersionMask = 0x9e3779b97f4a7c15;

std::string Store::VersionText(int64_t revision) const {
  if (!opaqueVersions_) return std::to_string(revision);
  char text[24];
  std::snprintf(text, sizeof text, "rv-%016llx",
                static_cast<unsigned long long>(static_cast<uint64_t>(revision) ^ kVersionMask));
  return text;
}

std::optional<int64_t> Store::ParseVersion(const std::string& text) const {
  std::string_view digits = text;
  int base = 10;
  if (opaqueVersions_) {
    if (!digits.starts_with("rv-") || digits.size() != 19) return std::nullopt;
    digits.remove_prefix(3);
    base = 16;
  }
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value, base);
  if (ec != std::errc() || end != digits.data() + digits.size() || digits.empty()) {
    return std::nullopt;
  }
  if (opaqueVersions_) value ^= kVersionMask;
  if (value > static_cast<uint64_t>(INT64_MAX)) return std::nullopt;
  return static_cast<int64_t>(value);
}

ApiResult<json> Store::Create(const ApiPath& collection, json object, bool keepUid) {
  if (!object.is_object()) return std::unexpected(BadRequest("the body must be a JSON object"));
  if (auto bad = Mismatch(collection, object)) return std::unexpected(*bad);
  std::lock_guard lock(mu_);
  ApiPath where = collection;
  if (where.ns.empty()) where.ns = StringAt(object, "namespace");
  where.name = StringAt(object, "name");
  if (where.name.empty() && !StringAt(object, "generateName").empty()) {
    where.name = UniqueNameLocked(where, where.ns, StringAt(object, "generateName"));
  }
  if (where.name.empty()) {
    return std::unexpected(ApiError{422,
                                    "Invalid",
                                    "metadata.name: Required value: name or generateName is "
                                    "required",
                                    {}});
  }
  if (objects_.contains(KeyOf(where))) {
    return std::unexpected(
        ErrorAbout(where, 409, "AlreadyExists",
                   where.groupResource() + " \"" + where.name + "\" already exists"));
  }
  json& meta = object["metadata"];
  if (!meta.is_object()) meta = json::object();
  meta["name"] = where.name;
  if (where.ns.empty()) {
    meta.erase("namespace");
  } else {
    meta["namespace"] = where.ns;
  }
  if (!keepUid || !meta.contains("uid") || !meta["uid"].is_string()) meta["uid"] = NewUid();
  meta["creationTimestamp"] = NowRfc3339();
  if (!object.contains("apiVersion")) object["apiVersion"] = where.apiVersion();
  if (!object.contains("kind")) object["kind"] = KindLocked(where);
  std::string text = RecordLocked("ADDED", where, object, std::nullopt);
  objects_[KeyOf(where)] = StoredOf(object, std::move(text));
  return object;
}

ApiResult<json> Store::Update(const ApiPath& path, json object, bool checkVersion) {
  if (!object.is_object()) return std::unexpected(BadRequest("the body must be a JSON object"));
  if (auto bad = Mismatch(path, object)) return std::unexpected(*bad);
  std::lock_guard lock(mu_);
  auto it = objects_.find(KeyOf(path));
  if (it == objects_.end()) return std::unexpected(NotFoundError(path));
  std::string expected = StringAt(object, "resourceVersion");
  if (checkVersion && !expected.empty() && expected != it->second.resourceVersion) {
    return std::unexpected(ErrorAbout(path, 409, "Conflict",
                                      "Operation cannot be fulfilled on " + path.groupResource() +
                                          " \"" + path.name +
                                          "\": the object has been modified; please apply your "
                                          "changes to the latest version and try again"));
  }
  json& meta = object["metadata"];
  if (!meta.is_object()) meta = json::object();
  meta["name"] = path.name;
  if (!path.ns.empty()) meta["namespace"] = path.ns;
  // Set at creation and never changed by an update.
  meta["uid"] = it->second.uid;
  meta["creationTimestamp"] = it->second.creationTimestamp;
  if (!object.contains("apiVersion")) object["apiVersion"] = it->second.apiVersion;
  if (!object.contains("kind")) object["kind"] = it->second.kind;
  std::string text = RecordLocked("MODIFIED", path, object, std::move(it->second.text));
  it->second = StoredOf(object, std::move(text));
  return object;
}

ApiResult<json> Store::Delete(const ApiPath& path) {
  std::lock_guard lock(mu_);
  auto it = objects_.find(KeyOf(path));
  if (it == objects_.end()) return std::unexpected(NotFoundError(path));
  json object = json::parse(it->second.text);
  std::string before = std::move(it->second.text);
  objects_.erase(it);
  // Like etcd, the DELETED event carries the object at the deletion's resourceVersion.
  RecordLocked("DELETED", path, object, std::move(before));
  return object;
}

std::optional<json> Store::Get(const ApiPath& path) const {
  std::lock_guard lock(mu_);
  auto it = objects_.find(KeyOf(path));
  if (it == objects_.end()) return std::nullopt;
  return json::parse(it->second.text);
}

ApiResult<std::string> Store::ListPage(const ApiPath& collection, size_t limit,
                                       const std::string& continueToken) const {
  std::lock_guard lock(mu_);
  int64_t at = rv_;
  std::optional<Key> after;  // the previous page's last object
  if (!continueToken.empty()) {
    std::optional<ContinueToken> token = DecodeContinue(continueToken);
    if (!token) return std::unexpected(BadRequest("invalid continue token: " + continueToken));
    if (token->rv < floor_) return std::unexpected(ContinueExpiredError());
    at = token->rv;
    after = Key{collection.prefix, collection.resource, token->ns, token->name};
  }
  std::string items;
  size_t count = 0;
  std::optional<Key> last;  // set when more items follow this page
  VisitAtLocked(collection, at, after, [&](const Key& key, const std::string& text) {
    if (limit != 0 && count == limit) return false;
    items += (count++ == 0 ? "" : ",") + text;
    last = key;
    return true;
  });
  json metadata = {{"resourceVersion", VersionText(at)}};
  if (limit != 0 && count == limit && last) {
    bool more = false;
    VisitAtLocked(collection, at, last, [&](const Key&, const std::string&) {
      more = true;
      return false;
    });
    if (more) metadata["continue"] = EncodeContinue({at, std::get<2>(*last), std::get<3>(*last)});
  }
  json head = {{"apiVersion", collection.apiVersion()},
               {"kind", KindLocked(collection) + "List"},
               {"metadata", std::move(metadata)}};
  std::string body = head.dump();
  body.pop_back();  // the closing brace: the items follow
  return body + ",\"items\":[" + items + "]}";
}

void Store::VisitAtLocked(const ApiPath& collection, int64_t at, const std::optional<Key>& after,
                          const std::function<bool(const Key&, const std::string&)>& visit) const {
  auto inRange = [&](const Key& key) {
    return std::get<0>(key) == collection.prefix && std::get<1>(key) == collection.resource &&
           (collection.ns.empty() || std::get<2>(key) == collection.ns) && (!after || key > *after);
  };
  // Objects written since `at`, with their text from before the first such write (null: the
  // object did not exist yet); every other object is as it is now.
  std::map<Key, const std::string*> then;
  for (const Event& event : history_) {
    if (event.rv > at && inRange(KeyOf(event.where))) {
      then.try_emplace(KeyOf(event.where), event.before ? &*event.before : nullptr);
    }
  }
  auto now =
      after ? objects_.upper_bound(*after)
            : objects_.lower_bound({collection.prefix, collection.resource, collection.ns, ""});
  auto old = then.begin();
  while (true) {
    bool fromNow = now != objects_.end() && inRange(now->first);
    if (!fromNow && old == then.end()) return;
    bool takeNow = fromNow && (old == then.end() || now->first < old->first);
    const Key& key = takeNow ? now->first : old->first;
    const std::string* text = takeNow ? &now->second.text : old->second;
    if (text != nullptr && !visit(key, *text)) return;
    if (takeNow) {
      ++now;
    } else {
      if (fromNow && now->first == old->first) ++now;  // superseded by its earlier text
      ++old;
    }
  }
}

// Tokens are standard base64 (with '+', '/' and '=') of a small JSON object: opaque to clients,
// and broken unless a client escapes them in the query, as it must any token.
std::string Store::EncodeContinue(const ContinueToken& token) const {
  return gpugate::Base64Encode(json{
      {"v", "meta.k8s.io/v1"},
      {"rv", token.rv},
      {"ns", token.ns},
      {"name", token.name}}.dump());
}

std::optional<Store::ContinueToken> Store::DecodeContinue(const std::string& text) const {
  auto decoded = gpugate::Base64Decode(text);
  if (!decoded) return std::nullopt;
  json token = json::parse(*decoded, nullptr, false);
  if (!token.is_object() || token.value("v", json()) != "meta.k8s.io/v1" ||
      !token.value("rv", json()).is_number_integer() || !token.value("ns", json()).is_string() ||
      !token.value("name", json()).is_string()) {
    return std::nullopt;
  }
  return ContinueToken{token["rv"].get<int64_t>(), token["ns"].get<std::string>(),
                       token["name"].get<std::string>()};
}

ApiResult<WatchCursor> Store::OpenWatch(const ApiPath& collection, std::optional<int64_t> from,
                                        std::vector<std::string>* initial) {
  std::lock_guard lock(mu_);
  if (from && *from < floor_) return std::unexpected(TooOldLocked(*from));
  WatchCursor cursor{collection, from.value_or(rv_), generation_};
  if (!from) {
    for (const auto& [key, object] : objects_) {
      const auto& [prefix, resource, ns, name] = key;
      if (Watches(collection, ApiPath{prefix, resource, ns, name})) {
        initial->push_back(EventLineOf("ADDED", object.text));
      }
    }
  }
  return cursor;
}

WatchWake Store::Next(WatchCursor& cursor, std::chrono::steady_clock::time_point until,
                      std::vector<std::string>* lines) {
  std::unique_lock lock(mu_);
  while (true) {
    if (closed_ || cursor.generation != generation_ || (cursor.canceled && cursor.canceled())) {
      return WatchWake::kBroken;
    }
    if (cursor.sent < floor_) {
      lines->push_back(EventLine("ERROR", StatusFor(TooOldLocked(cursor.sent))));
      return WatchWake::kExpired;
    }
    // history_[i] has resourceVersion floor_ + 1 + i.
    for (size_t i = static_cast<size_t>(cursor.sent - floor_); i < history_.size(); ++i) {
      if (Watches(cursor.filter, history_[i].where)) lines->push_back(history_[i].line);
    }
    cursor.sent = std::max(cursor.sent, rv_);
    if (!lines->empty()) return WatchWake::kEvents;
    if (std::chrono::steady_clock::now() >= until) return WatchWake::kIdle;
    changed_.wait_until(lock, until);
  }
}

std::string Store::BookmarkLine(const WatchCursor& cursor) const {
  std::lock_guard lock(mu_);
  json object = {{"kind", KindLocked(cursor.filter)},
                 {"apiVersion", cursor.filter.apiVersion()},
                 {"metadata", {{"resourceVersion", VersionText(cursor.sent)}}}};
  return EventLine("BOOKMARK", object);
}

void Store::Wake() {
  std::lock_guard lock(mu_);  // so a watcher about to wait cannot miss it
  changed_.notify_all();
}

void Store::BreakWatches() {
  std::lock_guard lock(mu_);
  ++generation_;
  changed_.notify_all();
}

void Store::ExpireHistory() {
  std::lock_guard lock(mu_);
  history_.clear();
  floor_ = rv_;
  changed_.notify_all();
}

void Store::Close() {
  std::lock_guard lock(mu_);
  closed_ = true;
  changed_.notify_all();
}

std::string Store::RecordLocked(std::string_view type, const ApiPath& where, json& object,
                                std::optional<std::string> before) {
  object["metadata"]["resourceVersion"] = VersionText(++rv_);
  std::string text = object.dump();
  history_.push_back({rv_, where, EventLineOf(type, text), std::move(before)});
  while (history_.size() > historyLimit_) {
    floor_ = history_.front().rv;
    history_.pop_front();
  }
  changed_.notify_all();
  return text;
}

Store::Stored Store::StoredOf(const json& object, std::string text) {
  const json& meta = object["metadata"];
  return {std::move(text),
          StringAt(object, "resourceVersion"),
          meta.value("uid", json()),
          meta.value("creationTimestamp", json()),
          object.value("apiVersion", json()),
          object.value("kind", json())};
}

std::string Store::KindLocked(const ApiPath& path) const {
  for (auto it = objects_.lower_bound({path.prefix, path.resource, "", ""});
       it != objects_.end() && std::get<0>(it->first) == path.prefix &&
       std::get<1>(it->first) == path.resource;
       ++it) {
    if (it->second.kind.is_string()) return it->second.kind.get<std::string>();
  }
  return GuessKind(path.resource);
}

ApiError Store::TooOldLocked(int64_t requested) const {
  return {410,
          "Expired",
          "too old resource version: " + VersionText(requested) + " (" + VersionText(floor_) + ")",
          {}};
}

std::string Store::UniqueNameLocked(const ApiPath& collection, const std::string& ns,
                                    const std::string& generateName) {
  // The API server's alphabet for generated suffixes: no vowels, no look-alike digits.
  static constexpr std::string_view kAlphabet = "bcdfghjklmnpqrstvwxz2456789";
  std::uniform_int_distribution<size_t> pick(0, kAlphabet.size() - 1);
  while (true) {
    std::string name = generateName;
    for (int i = 0; i < 5; ++i) name += kAlphabet[pick(Random())];
    if (!objects_.contains({collection.prefix, collection.resource, ns, name})) return name;
  }
}

}  // namespace gpugate::testing::standin
