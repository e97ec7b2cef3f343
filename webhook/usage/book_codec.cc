#include "usage/book_codec.h"

#include <nlohmann/json.hpp>
#include <utility>

#include "usage/civil_date.h"

namespace gpugate::usage {

using Json = nlohmann::ordered_json;
using std::chrono::seconds;

namespace {

Json KeyJson(const UsageKey& key, const KeyUsage& usage) {
  Json out = {{"namespace", key.ns}, {"resource", key.resource}};
  if (!key.model.empty()) out["model"] = key.model;
  out["from"] = FormatDate(usage.first);
  out["days"] = usage.days;
  if (!usage.recent.empty()) {
    Json recent = Json::array();
    for (const Interval& i : usage.recent) {
      recent.push_back(
          {i.held.from.time_since_epoch().count(), i.held.to.time_since_epoch().count(), i.milli});
    }
    out["recent"] = std::move(recent);
  }
  return out;
}

// Everything before the first key's object: `{"version":1,...,"keys":[`.
std::string Prefix(const UsageBook& book) {
  Json head = {{"version", 1}, {"timeZone", book.zone().name()}};
  if (book.historyStart() != local_days::min()) {
    head["historyStart"] = FormatDate(book.historyStart());
  }
  if (book.exactSince() != sys_seconds::min()) {
    head["exactSince"] = book.exactSince().time_since_epoch().count();
  }
  std::string text = head.dump();
  text.pop_back();  // the closing brace
  return text + ",\"keys\":[";
}

const Json* Field(const Json& object, const char* name) {
  auto it = object.find(name);
  return it == object.end() ? nullptr : &*it;
}

bool IsCount(const Json& v) { return v.is_number_integer() && v.get<int64_t>() >= 0; }

Result<KeyUsage> ReadKey(const Json& j, UsageKey& key) {
  const Json *ns = Field(j, "namespace"), *resource = Field(j, "resource"),
             *model = Field(j, "model"), *from = Field(j, "from"), *days = Field(j, "days"),
             *recent = Field(j, "recent");
  if (!ns || !ns->is_string() || !resource || !resource->is_string() ||
      (model && !model->is_string()) || !from || !from->is_string() || !days || !days->is_array() ||
      (recent && !recent->is_array())) {
    return Fail("a key needs namespace, resource, from and days");
  }
  key = {ns->get<std::string>(), resource->get<std::string>(),
         model ? model->get<std::string>() : ""};
  KeyUsage usage;
  Result<local_days> first = ParseDate(from->get<std::string>());
  if (!first) return Fail("from: " + first.error().message);
  usage.first = *first;
  for (const Json& d : *days) {
    if (!IsCount(d)) return Fail("days must be non-negative integers");
    usage.days.push_back(d.get<int64_t>());
  }
  // Within 1970-2200 and a million GPUs, as UsageBook::Accrue admits them.
  constexpr int64_t kEnd2200 = 7'258'118'400, kMaxMilli = 1'000'000'000;
  for (const Json& r : recent ? *recent : Json::array()) {
    if (!r.is_array() || r.size() != 3 || !IsCount(r[0]) || !IsCount(r[1]) || !IsCount(r[2]) ||
        r[1].get<int64_t>() < r[0].get<int64_t>() || r[1].get<int64_t>() > kEnd2200 ||
        r[2].get<int64_t>() > kMaxMilli) {
      return Fail("recent intervals must be [start, end, milli] with start <= end");
    }
    usage.recent.push_back(
        {{sys_seconds(seconds(r[0].get<int64_t>())), sys_seconds(seconds(r[1].get<int64_t>()))},
         r[2].get<int64_t>()});
  }
  return usage;
}

}  // namespace

// Restores a book's private fields from the stored form (UsageBook befriends it).
class BookCodec {
 public:
  static Result<UsageBook> Decode(const Json& j, TimeZone zone, BookOptions options) {
    UsageBook book(std::move(zone), options);
    if (!j.is_object() || Field(j, "version") == nullptr || (*Field(j, "version")) != 1) {
      return Fail("not a version 1 usage record");
    }
    const Json* tz = Field(j, "timeZone");
    if (!tz || !tz->is_string()) return Fail("timeZone missing");
    if (tz->get<std::string>() != book.zone().name()) {
      return Fail("its days are in time zone " + tz->dump() + ", not the configured \"" +
                  book.zone().name() + "\"");
    }
    if (const Json* h = Field(j, "historyStart")) {
      Result<local_days> day =
          h->is_string() ? ParseDate(h->get<std::string>()) : Fail("expected a date");
      if (!day) return Fail("historyStart: " + day.error().message);
      book.historyStart_ = *day;
    }
    if (const Json* e = Field(j, "exactSince")) {
      if (!e->is_number_integer()) return Fail("exactSince must be an integer");
      book.exactSince_ = sys_seconds(seconds(e->get<int64_t>()));
    }
    if (options.exactWindow <= seconds(0)) book.exactSince_ = sys_seconds::max();
    const Json* keys = Field(j, "keys");
    if (!keys || !keys->is_array()) return Fail("keys missing");
    for (const Json& k : *keys) {
      UsageKey key;
      Result<KeyUsage> usage = ReadKey(k, key);
      if (!usage) return Fail(usage.error().message);
      if (book.keys_.contains(key)) return Fail("a key is listed twice");
      book.keyBytes_[key] = EncodedKeyBytes(key, *usage);
      book.keys_[key] = std::move(*usage);
    }
    book.Resize();
    return book;
  }

  static UsageBook Merge(std::span<const UsageBook* const> books, TimeZone zone,
                         BookOptions options) {
    UsageBook out(std::move(zone), options);
    bool first = true;
    for (const UsageBook* book : books) {
      out.historyStart_ =
          first ? book->historyStart_ : std::max(out.historyStart_, book->historyStart_);
      out.exactSince_ = first ? book->exactSince_ : std::max(out.exactSince_, book->exactSince_);
      first = false;
      for (const auto& [key, usage] : book->keys_) {
        if (!out.keys_.try_emplace(key, usage).second) continue;
        out.keyBytes_[key] = EncodedKeyBytes(key, usage);
      }
    }
    out.Resize();
    return out;
  }
};

UsageBook MergeBooks(std::span<const UsageBook* const> books, TimeZone zone, BookOptions options) {
  return BookCodec::Merge(books, std::move(zone), options);
}

std::string EncodeBook(const UsageBook& book) {
  std::string out = Prefix(book);
  bool first = true;
  for (const auto& [key, usage] : book.keys()) {
    if (!first) out += ',';
    first = false;
    out += KeyJson(key, usage).dump();
  }
  return out + "]}";
}

Result<UsageBook> DecodeBook(std::string_view text, TimeZone zone, BookOptions options) {
  Json j = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Fail("usage record: not JSON");
  Result<UsageBook> book = BookCodec::Decode(j, std::move(zone), options);
  if (!book) return Fail("usage record: " + book.error().message);
  return book;
}

size_t EncodedKeyBytes(const UsageKey& key, const KeyUsage& usage) {
  return KeyJson(key, usage).dump().size();
}

size_t EncodedFrameBytes(const UsageBook& book) { return Prefix(book).size() + 2; }

}  // namespace gpugate::usage
