#include "usage/book_codec.h"

#include <gtest/gtest.h>

#include "usage/testing.h"

namespace gpugate::usage {
namespace {

using namespace testing;

UsageBook Sample(BookOptions options = {.exactWindow = minutes(10)}) {
  UsageBook book(Zone("Europe/Berlin"), options);
  Accrual a[] = {
      {Key("team-a", "nvidia.com/gpu", "a100"), 2000, {Utc(2026, 11, 2, 22), Utc(2026, 11, 3, 1)}},
      {Key("team-b", "gpu-equivalents"), 500, {Utc(2026, 11, 4, 8), Utc(2026, 11, 4, 9)}}};
  EXPECT_TRUE(book.Accrue(a).has_value());
  book.Prune(Utc(2026, 11, 4, 9, 5));
  return book;
}

// The stored form, as a Kubernetes object or a journal holds it.
TEST(BookCodecTest, EncodesCompactly) {
  EXPECT_EQ(EncodeBook(Sample()),
            R"({"version":1,"timeZone":"Europe/Berlin","historyStart":"2025-11-01",)"
            R"("exactSince":1793782500,"keys":[)"
            R"({"namespace":"team-a","resource":"nvidia.com/gpu","model":"a100",)"
            R"("from":"2026-11-02","days":[7200000,14400000]},)"
            R"({"namespace":"team-b","resource":"gpu-equivalents","from":"2026-11-04",)"
            R"("days":[1800000],"recent":[[1793779200,1793782800,500]]}]})");
  EXPECT_EQ(EncodeBook(UsageBook(TimeZone::Utc(), {})),
            R"({"version":1,"timeZone":"UTC","exactSince":9223372036854775807,"keys":[]})");
}

// A restart mid-period: the book read back from its stored form goes on exactly as the one
// that never stopped.
TEST(BookCodecTest, RestartMidPeriodContinuesExactly) {
  UsageBook running = Sample();
  Result<UsageBook> restarted =
      DecodeBook(EncodeBook(running), Zone("Europe/Berlin"), {.exactWindow = minutes(10)});
  ASSERT_TRUE(restarted.has_value()) << restarted.error().message;
  EXPECT_EQ(EncodeBook(*restarted), EncodeBook(running));
  EXPECT_EQ(restarted->EncodedSize(), running.EncodedSize());
  Accrual later[] = {
      {Key("team-b", "gpu-equivalents"), 500, {Utc(2026, 11, 4, 9), Utc(2026, 11, 4, 9, 4)}},
      {Key("team-c"), 1000, {Utc(2026, 11, 30, 20), Utc(2026, 12, 1, 2)}}};
  ASSERT_TRUE(running.Accrue(later).has_value());
  ASSERT_TRUE(restarted->Accrue(later).has_value());
  running.Prune(Utc(2026, 12, 1, 3));
  restarted->Prune(Utc(2026, 12, 1, 3));
  EXPECT_EQ(EncodeBook(*restarted), EncodeBook(running));
  Span november = {Utc(2026, 10, 31, 23), Utc(2026, 11, 30, 23)};
  EXPECT_EQ(restarted->Totals(november), running.Totals(november));
}

// Books kept per namespace (cluster mode) read as one: every key as stored, the latest horizon.
TEST(BookCodecTest, MergesBooksKeptApart) {
  const BookOptions options{.exactWindow = minutes(10)};
  UsageBook a(Zone("Europe/Berlin"), options), b(Zone("Europe/Berlin"), options);
  Accrual toA[] = {{Key("team-a"), 1000, {Utc(2026, 11, 2, 8), Utc(2026, 11, 2, 10)}}};
  Accrual toB[] = {{Key("team-b"), 2000, {Utc(2026, 11, 3, 8), Utc(2026, 11, 3, 9)}},
                   {Key("team-a"), 9000, {Utc(2026, 11, 3, 8), Utc(2026, 11, 3, 9)}}};
  ASSERT_TRUE(a.Accrue(toA).has_value());
  ASSERT_TRUE(b.Accrue(toB).has_value());
  a.Prune(Utc(2026, 11, 3, 0));
  b.Prune(Utc(2026, 11, 3, 9, 5));
  const UsageBook* books[] = {&a, &b};
  UsageBook merged = MergeBooks(books, Zone("Europe/Berlin"), options);
  // team-a's key is a's: a key met twice keeps the first.
  EXPECT_EQ(Render(merged),
            "team-a/nvidia.com/gpu 2026-11-02=2h; team-b/nvidia.com/gpu 2026-11-03=2h");
  EXPECT_EQ(merged.exactSince(), b.exactSince());
  EXPECT_EQ(merged.historyStart(), b.historyStart());
  EXPECT_EQ(merged.EncodedSize(), EncodeBook(merged).size());
}

TEST(BookCodecTest, RefusesMalformedRecords) {
  std::string good = EncodeBook(Sample());
  auto replaced = [&](std::string_view from, std::string_view to) {
    std::string text = good;
    text.replace(text.find(from), from.size(), to);
    return text;
  };
  struct Case {
    std::string text;
    const char* error;
  } cases[] = {
      {"", "usage record: not JSON"},
      {good.substr(0, good.size() - 1), "usage record: not JSON"},
      {"[]", "usage record: not a version 1 usage record"},
      {replaced("\"version\":1", "\"version\":2"), "usage record: not a version 1 usage record"},
      {replaced("Europe/Berlin", "UTC"),
       "usage record: its days are in time zone \"UTC\", not the configured \"Europe/Berlin\""},
      {replaced("7200000", "-7200000"), "usage record: days must be non-negative integers"},
      {replaced("\"2026-11-02\"", "\"2026-11-31\""), "usage record: from: no such day: 2026-11-31"},
      {replaced("[1793779200,1793782800,500]", "[1793782800,1793779200,500]"),
       "usage record: recent intervals must be [start, end, milli] with start <= end"},
      {replaced(R"("namespace":"team-b","resource":"gpu-equivalents")",
                R"("namespace":"team-a","resource":"nvidia.com/gpu","model":"a100")"),
       "usage record: a key is listed twice"},
      {replaced(R"("resource":"gpu-equivalents",)", ""),
       "usage record: a key needs namespace, resource, from and days"},
      {replaced("[1793779200,1793782800,500]", "[1793779200,1793782800,9223372036854775807]"),
       "usage record: recent intervals must be [start, end, milli] with start <= end"},
      {replaced("\"keys\":[", "\"keyz\":["), "usage record: keys missing"},
  };
  for (const Case& c : cases) {
    Result<UsageBook> book = DecodeBook(c.text, Zone("Europe/Berlin"), {});
    ASSERT_FALSE(book.has_value()) << c.text;
    EXPECT_EQ(book.error().message, c.error) << c.text;
  }
}

}  // namespace
}  // namespace gpugate::usage
