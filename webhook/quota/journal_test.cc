#include "quota/journal.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/temp_dir.h"
#include "test_paths.h"

namespace gpugate::quota {
namespace {

namespace fs = std::filesystem;
using Type = JournalRecord::Type;

JournalRecord ChargeRecord(std::string ns, std::string name, std::string uid, Amounts amounts) {
  return {Type::kCharge, std::move(ns), std::move(name), std::move(uid), std::move(amounts)};
}

JournalRecord ReleaseRecord(std::string ns, std::string name, std::string uid) {
  return {Type::kRelease, std::move(ns), std::move(name), std::move(uid), {}};
}

JournalRecord ReleaseAtRecord(std::string ns, std::string name, std::string uid,
                              std::string_view at) {
  JournalRecord r{Type::kReleaseAt, std::move(ns), std::move(name), std::move(uid), {}};
  r.releaseAt = *ParseRfc3339(at);
  return r;
}

// A format-3 record: a start (kStart) or a timed release (kRelease).
JournalRecord Timed(Type type, std::string ns, std::string name, std::string uid,
                    std::string_view at) {
  JournalRecord r{type, std::move(ns), std::move(name), std::move(uid), {}};
  r.at = *ParseRfc3339(at);
  return r;
}

JournalRecord BookRecord(std::string book) {
  JournalRecord r{Type::kBook, "", "", "", {}};
  r.book = std::move(book);
  return r;
}

// "+team-a/p1@u1{nvidia.com/gpu=1} ~team-a/p1@u1<2026-11-01T00:00:30.000Z -team-a/p1@u1":
// records as a short string.
std::string Render(const std::vector<JournalRecord>& records) {
  std::string out;
  for (const JournalRecord& r : records) {
    if (!out.empty()) out += ' ';
    const char* sign = r.type == Type::kCharge ? "+" : r.type == Type::kRelease ? "-" : "~";
    out += sign + r.ns + "/" + r.name + "@" + r.uid;
    if (r.type == Type::kCharge) out += "{" + FormatAmounts(r.amounts) + "}";
    if (r.type == Type::kReleaseAt) out += "<" + FormatRfc3339(r.releaseAt);
  }
  return out;
}

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

void WriteFile(const fs::path& path, std::string_view data) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << data;
}

// Bit-at-a-time CRC-32, independent of the table version under test.
uint32_t ReferenceCrc32(std::string_view data) {
  uint32_t crc = 0xFFFFFFFFu;
  for (unsigned char byte : data) {
    crc ^= byte;
    for (int bit = 0; bit < 8; ++bit) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1)));
  }
  return ~crc;
}

std::string Frame(std::string_view payload) {
  std::string out;
  for (uint32_t v : {static_cast<uint32_t>(payload.size()), ReferenceCrc32(payload)}) {
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>(v >> (8 * i)));
  }
  return out + std::string(payload);
}

class JournalTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_FALSE(tmp_.path().empty()); }

  std::unique_ptr<Journal> Open(const fs::path& path, JournalOptions options = {}) {
    Result<std::unique_ptr<Journal>> journal = OpenFileJournal(path.string(), options);
    EXPECT_TRUE(journal.has_value()) << journal.error().message;
    return journal ? std::move(*journal) : nullptr;
  }

  // Opens `path`, replays it and returns the records.
  std::vector<JournalRecord> Replayed(const fs::path& path, JournalOptions options = {}) {
    std::unique_ptr<Journal> journal = Open(path, options);
    std::vector<JournalRecord> records;
    if (!journal) return records;
    Status status = journal->Replay([&](const JournalRecord& r) { records.push_back(r); });
    EXPECT_TRUE(status.has_value()) << status.error().message;
    return records;
  }

  void AppendAll(const fs::path& path, const std::vector<JournalRecord>& records) {
    std::unique_ptr<Journal> journal = Open(path);
    ASSERT_TRUE(journal);
    ASSERT_TRUE(journal->Replay([](const JournalRecord&) {}).has_value());
    for (const JournalRecord& r : records) ASSERT_TRUE(journal->Append(r).has_value());
  }

  gpugate::testing::TempDir tmp_{"gpugate-journal-"};  // removed with the fixture
  fs::path dir_ = tmp_.path();
};

TEST(JournalEncoding, FramesWithLengthAndIeeeCrc) {
  EXPECT_EQ(ReferenceCrc32("123456789"), 0xCBF43926u);  // the IEEE check value
  std::string framed = EncodeRecord(ChargeRecord("team-a", "p1", "u1", {{"nvidia.com/gpu", 1000}}));
  ASSERT_GT(framed.size(), 8u);
  EXPECT_EQ(framed, Frame(framed.substr(8)));
}

TEST_F(JournalTest, RoundTripsEveryKindOfRecord) {
  std::vector<JournalRecord> records = {
      ChargeRecord("team-a", "p1", "u1", {{"nvidia.com/gpu", 1000}, {"gpu-equivalents", 1500}}),
      ReleaseRecord("team-a", "p1", "u1"),
      ChargeRecord("", "", "", {}),
      ChargeRecord("ns", "no-uid", "", {{"big", INT64_MAX}, {"negative", -5}}),
      ChargeRecord(std::string("nul\0ns", 6), "line\nbreak\"quote", "\xff\xfe not utf-8", {}),
      ChargeRecord("ns", std::string(70000, 'x'), "u", {{std::string(300, 'r'), 1}}),
      ReleaseRecord("ns", "no-uid", ""),
  };
  AppendAll(dir_ / "ledger", records);
  EXPECT_EQ(Replayed(dir_ / "ledger"), records);
}

TEST_F(JournalTest, RoundTripsStartsTimedReleasesAndTheBook) {
  std::vector<JournalRecord> records = {
      BookRecord(R"({"version":1,"timeZone":"UTC","keys":[]})"),
      ChargeRecord("team-a", "p1", "u1", {{"nvidia.com/gpu", 1000}}),
      Timed(Type::kStart, "team-a", "p1", "u1", "2026-11-01T00:00:05.250Z"),
      Timed(Type::kRelease, "team-a", "p1", "u1", "2026-11-01T01:00:00Z"),
      BookRecord(""),
      ReleaseRecord("team-a", "p2", ""),
  };
  AppendAll(dir_ / "ledger", records);
  EXPECT_EQ(Replayed(dir_ / "ledger"), records);
  // Untimed releases stay format 1, so a journal without starts stays readable by an older
  // gpugate; a start and a timed release are format 3.
  EXPECT_EQ(EncodeRecord(records[5])[8], '\x01');
  EXPECT_EQ(EncodeRecord(records[2])[8], '\x03');
  EXPECT_EQ(EncodeRecord(records[3])[8], '\x03');
}

TEST_F(JournalTest, CreatesDirectoryAndPrivateFile) {
  fs::path path = dir_ / "a" / "b" / "ledger";
  ASSERT_TRUE(Open(path));
  struct stat st = {};
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(st.st_size, 0);
}

TEST_F(JournalTest, OpenErrors) {
  WriteFile(dir_ / "file", "x");
  Result<std::unique_ptr<Journal>> underFile = OpenFileJournal((dir_ / "file" / "ledger").string());
  ASSERT_FALSE(underFile.has_value());
  EXPECT_TRUE(underFile.error().message.starts_with("creating directory " +
                                                    (dir_ / "file").string() + ": "))
      << underFile.error().message;

  std::unique_ptr<Journal> first = Open(dir_ / "ledger");
  Result<std::unique_ptr<Journal>> second = OpenFileJournal((dir_ / "ledger").string());
  ASSERT_FALSE(second.has_value());
  EXPECT_EQ(second.error().message, (dir_ / "ledger").string() + ": in use by another ledger");
  first.reset();
  EXPECT_TRUE(Open(dir_ / "ledger"));
}

// The crash test: a file cut at any byte replays exactly the records wholly before the cut, and
// the journal keeps working after it.
TEST_F(JournalTest, TruncatedAtEveryOffsetReplaysWholeRecordsAndStaysAppendable) {
  std::vector<JournalRecord> records = {
      ChargeRecord("team-a", "p1", "u1", {{"nvidia.com/gpu", 1000}}),
      ChargeRecord("team-b", "p2", "", {{"tencent.com/vcuda-core", 50000}, {"gpu-eq", 500}}),
      ReleaseRecord("team-a", "p1", "u1"),
      ChargeRecord("team-a", "p1", "u2", {}),
      ReleaseRecord("t", "p", ""),
  };
  AppendAll(dir_ / "full", records);
  std::string full = ReadFile(dir_ / "full");
  std::vector<size_t> ends;  // where each record ends
  for (const JournalRecord& r : records) {
    ends.push_back((ends.empty() ? 0 : ends.back()) + EncodeRecord(r).size());
  }
  ASSERT_EQ(ends.back(), full.size());
  JournalRecord after = ChargeRecord("team-c", "late", "u9", {{"amd.com/gpu", 2000}});

  // What is checked is what replay and append do to the file's bytes, read back in this process:
  // no crash comes between, so the syncs (four per cut on a real disk, seconds in all) are off.
  const JournalOptions noSync{.sync = false};
  for (size_t cut = 0; cut <= full.size(); ++cut) {
    SCOPED_TRACE("cut at byte " + std::to_string(cut));
    size_t whole = 0;
    while (whole < ends.size() && ends[whole] <= cut) ++whole;
    std::vector<JournalRecord> want(records.begin(), records.begin() + whole);
    fs::path path = dir_ / "cut";
    WriteFile(path, full.substr(0, cut));

    {
      std::unique_ptr<Journal> journal = Open(path, noSync);
      ASSERT_TRUE(journal);
      std::vector<JournalRecord> got;
      ASSERT_TRUE(journal->Replay([&](const JournalRecord& r) { got.push_back(r); }).has_value());
      ASSERT_EQ(Render(got), Render(want));
      EXPECT_EQ(fs::file_size(path), whole == 0 ? 0 : ends[whole - 1]) << "torn tail not cut";
      ASSERT_TRUE(journal->Append(after).has_value());
    }
    want.push_back(after);
    ASSERT_EQ(Render(Replayed(path, noSync)), Render(want));
  }
}

TEST_F(JournalTest, CorruptionEndsReplayAtTheDamagedRecord) {
  std::vector<JournalRecord> records;
  for (int i = 0; i < 5; ++i) {
    records.push_back(ChargeRecord("ns", "p" + std::to_string(i), "u", {{"nvidia.com/gpu", 1000}}));
  }
  AppendAll(dir_ / "clean", records);
  std::string clean = ReadFile(dir_ / "clean");
  size_t size = EncodeRecord(records[0]).size();  // all five have the same size
  size_t middle = 2 * size;
  struct Case {
    const char* what;
    size_t offset;
  } cases[] = {
      {"length, low byte", middle},
      {"length, high byte", middle + 3},
      {"checksum", middle + 5},
      {"payload version", middle + 8},
      {"payload type", middle + 9},
      {"payload middle", middle + size / 2},
      {"payload last byte", middle + size - 1},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    std::string damaged = clean;
    damaged[c.offset] ^= 0x01;
    WriteFile(dir_ / "damaged", damaged);
    EXPECT_EQ(Render(Replayed(dir_ / "damaged")), Render({records[0], records[1]}));
    EXPECT_EQ(fs::file_size(dir_ / "damaged"), middle);
  }
}

TEST_F(JournalTest, IntactButUndecodablePayloadIsCutOff) {
  std::string good = EncodeRecord(ChargeRecord("ns", "p", "u", {}));
  struct Case {
    const char* what;
    std::string payload;
  } cases[] = {
      {"empty", ""},
      {"unknown type", std::string("\x01\x07", 2)},
      {"version zero", std::string("\x00\x00", 2)},
      // Well-formed as a release-at record but for its version: type 2 came with version 2.
      {"release-at in version 1",
       std::string("\x01\x02", 2) + good.substr(10, good.size() - 14) + std::string(8, '\0')},
      // Type 3 came with version 3.
      {"start in version 2",
       std::string("\x02\x03", 2) + good.substr(10, good.size() - 14) + std::string(8, '\0')},
      {"string past end", std::string("\x01\x00\xff\x00\x00\x00", 6)},
      {"trailing bytes", good.substr(8) + "x"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    WriteFile(dir_ / "odd", good + Frame(c.payload) + good);
    EXPECT_EQ(Replayed(dir_ / "odd").size(), 1u);
    EXPECT_EQ(fs::file_size(dir_ / "odd"), good.size());
  }
}

TEST_F(JournalTest, NewerFormatVersionFailsReplayAndKeepsTheFile) {
  std::string good = EncodeRecord(ChargeRecord("ns", "p", "u", {}));
  std::string contents = good + Frame(std::string("\x04\x00", 2)) + good;
  WriteFile(dir_ / "newer", contents);
  std::unique_ptr<Journal> journal = Open(dir_ / "newer");
  Status status = journal->Replay([](const JournalRecord&) {});
  ASSERT_FALSE(status.has_value());
  EXPECT_EQ(status.error().message,
            (dir_ / "newer").string() + ": record at byte " + std::to_string(good.size()) +
                " has format version 4; this gpugate reads versions 1 to 3");
  EXPECT_EQ(ReadFile(dir_ / "newer"), contents);
}

TEST_F(JournalTest, CompactionKeepsExactlyTheLiveSetAndShrinksTheFile) {
  fs::path path = dir_ / "ledger";
  std::vector<JournalRecord> live;
  {
    std::unique_ptr<Journal> journal = Open(path);
    ASSERT_TRUE(journal->Replay([](const JournalRecord&) {}).has_value());
    for (int i = 0; i < 12; ++i) {
      std::string name = "p" + std::to_string(i);
      JournalRecord charge = ChargeRecord("team", name, "u", {{"nvidia.com/gpu", 1000}});
      ASSERT_TRUE(journal->Append(charge).has_value());
      if (i % 3 == 0) {
        live.push_back(charge);
      } else {
        ASSERT_TRUE(journal->Append(ReleaseRecord("team", name, "u")).has_value());
      }
    }
    uintmax_t before = fs::file_size(path);
    ASSERT_TRUE(journal->Compact(live).has_value());
    EXPECT_LT(fs::file_size(path), before);
    EXPECT_FALSE(fs::exists(path.string() + ".compact"));
    // Appends continue on the new file.
    JournalRecord late = ChargeRecord("team", "late", "u", {{"amd.com/gpu", 1000}});
    ASSERT_TRUE(journal->Append(late).has_value());
    live.push_back(late);
  }
  EXPECT_EQ(Render(Replayed(path)), Render(live));
  struct stat st = {};
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST_F(JournalTest, ShouldCompactWhenRecordsFarOutnumberLiveOnes) {
  std::vector<JournalRecord> many(1100, ChargeRecord("ns", "p", "u", {{"nvidia.com/gpu", 1000}}));
  std::unique_ptr<Journal> journal = Open(dir_ / "ledger");
  ASSERT_TRUE(journal->Replay([](const JournalRecord&) {}).has_value());
  EXPECT_FALSE(journal->ShouldCompact(0));
  ASSERT_TRUE(journal->Compact(many).has_value());  // a quick way to hold 1100 records
  struct Case {
    size_t live;
    bool want;
  } cases[] = {{0, true}, {37, true}, {38, false}, {1100, false}};
  for (const Case& c : cases) EXPECT_EQ(journal->ShouldCompact(c.live), c.want) << c.live;
  journal.reset();

  journal = Open(dir_ / "ledger");  // the count survives a restart through Replay
  ASSERT_TRUE(journal->Replay([](const JournalRecord&) {}).has_value());
  for (const Case& c : cases) EXPECT_EQ(journal->ShouldCompact(c.live), c.want) << c.live;
}

// A write that fails part way (here: the file size limit) must leave no half record behind.
TEST_F(JournalTest, FailedAppendIsRolledBack) {
  fs::path path = dir_ / "ledger";
  JournalRecord first = ChargeRecord("ns", "first", "u", {{"nvidia.com/gpu", 1000}});
  JournalRecord second = ChargeRecord("ns", "second", "u", {{"nvidia.com/gpu", 1000}});
  std::unique_ptr<Journal> journal = Open(path);
  ASSERT_TRUE(journal->Replay([](const JournalRecord&) {}).has_value());
  ASSERT_TRUE(journal->Append(first).has_value());
  uintmax_t size = fs::file_size(path);

  struct rlimit saved = {};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &saved), 0);
  struct rlimit tight = saved;
  tight.rlim_cur = size + 5;  // room for a few bytes of the next record only
  sighandler_t oldHandler = signal(SIGXFSZ, SIG_IGN);
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &tight), 0);
  Status failed = journal->Append(second);
  setrlimit(RLIMIT_FSIZE, &saved);
  signal(SIGXFSZ, oldHandler);

  ASSERT_FALSE(failed.has_value());
  EXPECT_TRUE(failed.error().message.starts_with("writing " + path.string() + ": "))
      << failed.error().message;
  EXPECT_EQ(fs::file_size(path), size);
  ASSERT_TRUE(journal->Append(second).has_value());
  journal.reset();
  EXPECT_EQ(Render(Replayed(path)), Render({first, second}));
}

TEST_F(JournalTest, ReleaseAtRecordsRoundTripToTheMillisecond) {
  fs::path path = dir_ / "ledger";
  std::vector<JournalRecord> records = {
      ChargeRecord("team-a", "trainer", "u1", {{"nvidia.com/gpu", 2000}}),
      ReleaseAtRecord("team-a", "trainer", "u1", "2026-11-27T20:00:30.250Z"),
      ReleaseAtRecord("team-a", "trainer", "u1", "1969-12-31T23:59:59.001Z"),
      ReleaseRecord("team-a", "trainer", "u1"),
  };
  AppendAll(path, records);
  EXPECT_EQ(Render(Replayed(path)),
            "+team-a/trainer@u1{nvidia.com/gpu=2} ~team-a/trainer@u1<2026-11-27T20:00:30.250Z "
            "~team-a/trainer@u1<1969-12-31T23:59:59.001Z -team-a/trainer@u1");
}

// Charges and releases keep format version 1, so a journal without a pod being deleted stays
// readable by the gpugate before version 2; only the release-at record is version 2.
TEST_F(JournalTest, OnlyReleaseAtRecordsAreWrittenAsVersionTwo) {
  auto versionOf = [](const JournalRecord& r) { return static_cast<int>(EncodeRecord(r)[8]); };
  EXPECT_EQ(versionOf(ChargeRecord("ns", "p", "u", {{"nvidia.com/gpu", 1000}})), 1);
  EXPECT_EQ(versionOf(ReleaseRecord("ns", "p", "u")), 1);
  EXPECT_EQ(versionOf(ReleaseAtRecord("ns", "p", "u", "2026-11-27T20:00:00Z")), 2);
}

// tests/testdata/journal/format-1.journal was written by the gpugate before release-at records
// (format version 1): two charges in team-a, one in team-b, then team-a/trainer-1 released.
TEST_F(JournalTest, JournalWrittenInFormatOneStillReplays) {
  fs::path path = dir_ / "old";
  fs::copy_file(fs::path(GPUGATE_SOURCE_DIR) / "tests/testdata/journal/format-1.journal", path);
  const uintmax_t size = fs::file_size(path);
  EXPECT_EQ(Render(Replayed(path)),
            "+team-a/trainer-0@uid-t0{nvidia.com/gpu=2} +team-a/trainer-1@uid-t1{nvidia.com/gpu=1} "
            "+team-b/infer@uid-i{gpu-equivalents=0.5,nvidia.com/gpu=1} -team-a/trainer-1@uid-t1");
  EXPECT_EQ(fs::file_size(path), size);  // nothing cut off
}

}  // namespace
}  // namespace gpugate::quota
