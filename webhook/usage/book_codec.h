// The usage book's stored form: compact JSON, for a Kubernetes object's field and for a journal.
//
//   {"version":1,"timeZone":"Europe/Berlin","historyStart":"2025-12-01","exactSince":1795000000,
//    "keys":[{"namespace":"team-a","resource":"nvidia.com/gpu","model":"a100",
//             "from":"2026-11-02","days":[7200000,0,3600000],
//             "recent":[[1795000100,1795000700,1000]]}]}
//
// "days" holds milli-GPU-seconds for each local day from "from" on; "recent" the finished
// intervals kept whole ([start, end) in Unix seconds, milli-units held). "model" and "recent"
// are left out when empty, "historyStart" and "exactSince" when never set.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

#include "common/result.h"
#include "usage/usage_book.h"

namespace gpugate::usage {

std::string EncodeBook(const UsageBook& book);

// The stored form back into a book with `zone` and `options`. Malformed JSON, a wrong shape or
// version, negative figures, and days kept in another time zone than `zone` (a day total cannot
// be moved to another zone's days) are errors with the reason. A stored form past
// options.maxBytes still loads: the bound stops growth, it never drops what was recorded.
Result<UsageBook> DecodeBook(std::string_view text, TimeZone zone, BookOptions options);

// One book holding the keys of every book in `books` (all in `zone`), for reading across books
// kept apart (cluster mode keeps one per namespace): every key's days and intervals as stored, the
// latest history start and exact horizon among them (what every one of them still holds), and
// `options` (its size bound is not applied). A key found in more than one book keeps the first.
UsageBook MergeBooks(std::span<const UsageBook* const> books, TimeZone zone, BookOptions options);

// The bytes one key's object takes in EncodeBook's output (UsageBook keeps its size with them).
size_t EncodedKeyBytes(const UsageKey& key, const KeyUsage& usage);

// The bytes of EncodeBook's output around the keys' objects.
size_t EncodedFrameBytes(const UsageBook& book);

}  // namespace gpugate::usage
