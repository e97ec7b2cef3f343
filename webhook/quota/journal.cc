#include "quota/journal.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string_view>

namespace gpugate::quota {
namespace {

constexpr size_t kHeaderSize = 8;            // u32 length, u32 CRC-32
constexpr uint32_t kMaxPayload = 16u << 20;  // a longer length can only be corruption
constexpr uint8_t kFormatVersion = 3;        // the newest this gpugate reads; see journal.h
constexpr uint8_t kChargeVersion = 1;        // charges and untimed releases are still version 1
constexpr uint8_t kReleaseAtVersion = 2;
constexpr int64_t kMaxMs = int64_t{9'000'000'000'000};  // about year 2255

constexpr std::array<uint32_t, 256> MakeCrcTable() {
  std::array<uint32_t, 256> table{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int bit = 0; bit < 8; ++bit) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    table[i] = c;
  }
  return table;
}

// CRC-32 (IEEE 802.3, reflected, as zlib and PNG compute it).
uint32_t Crc32(std::string_view data) {
  static constexpr std::array<uint32_t, 256> kTable = MakeCrcTable();
  uint32_t crc = 0xFFFFFFFFu;
  for (unsigned char byte : data) crc = kTable[(crc ^ byte) & 0xFF] ^ (crc >> 8);
  return crc ^ 0xFFFFFFFFu;
}

void PutLittleEndian(std::string& out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xFF));
}

uint64_t GetLittleEndian(std::string_view in, int bytes) {
  uint64_t value = 0;
  for (int i = 0; i < bytes; ++i) value |= uint64_t(static_cast<unsigned char>(in[i])) << (8 * i);
  return value;
}

// Strings are length-prefixed bytes, so any name (control characters, invalid UTF-8) round-trips.
void PutString(std::string& out, std::string_view s) {
  PutLittleEndian(out, s.size(), 4);
  out.append(s);
}

// Reads the payload front to back; any overrun sets ok = false and yields zeros.
struct PayloadReader {
  std::string_view in;
  bool ok = true;

  std::string_view Take(size_t n) {
    if (!ok || in.size() < n) {
      ok = false;
      return {};
    }
    std::string_view taken = in.substr(0, n);
    in.remove_prefix(n);
    return taken;
  }
  uint64_t Number(int bytes) {
    std::string_view raw = Take(bytes);
    return ok ? GetLittleEndian(raw, bytes) : 0;
  }
  std::string String() { return std::string(Take(Number(4))); }
};

uint8_t TypeCode(JournalRecord::Type type) {
  switch (type) {
    case JournalRecord::Type::kCharge:
      return 0;
    case JournalRecord::Type::kRelease:
      return 1;
    case JournalRecord::Type::kReleaseAt:
      return 2;
    case JournalRecord::Type::kStart:
      return 3;
    case JournalRecord::Type::kBook:
      return 4;
  }
  return 0;
}

// The oldest format version that holds `record` (journal.h).
uint8_t VersionOf(const JournalRecord& record) {
  switch (record.type) {
    case JournalRecord::Type::kCharge:
      return kChargeVersion;
    case JournalRecord::Type::kRelease:
      return record.at ? kFormatVersion : kChargeVersion;
    case JournalRecord::Type::kReleaseAt:
      return kReleaseAtVersion;
    case JournalRecord::Type::kStart:
    case JournalRecord::Type::kBook:
      return kFormatVersion;
  }
  return kFormatVersion;
}

void PutTime(std::string& out, WallClock::time_point t) {
  auto ms = std::chrono::floor<std::chrono::milliseconds>(t.time_since_epoch());
  PutLittleEndian(out, static_cast<uint64_t>(ms.count()), 8);
}

// The payload, as journal.h lays it out.
std::string EncodePayload(const JournalRecord& record) {
  std::string out;
  out.push_back(static_cast<char>(VersionOf(record)));
  out.push_back(static_cast<char>(TypeCode(record.type)));
  PutString(out, record.ns);
  PutString(out, record.name);
  PutString(out, record.uid);
  switch (record.type) {
    case JournalRecord::Type::kReleaseAt:
      PutTime(out, record.releaseAt);
      return out;
    case JournalRecord::Type::kStart:
      PutTime(out, record.at.value_or(WallClock::time_point{}));
      return out;
    case JournalRecord::Type::kBook:
      PutString(out, record.book);
      return out;
    case JournalRecord::Type::kRelease:
      if (!record.at) break;
      PutTime(out, *record.at);
      return out;
    case JournalRecord::Type::kCharge:
      break;
  }
  bool charge = record.type == JournalRecord::Type::kCharge;
  PutLittleEndian(out, charge ? record.amounts.size() : 0, 4);
  if (!charge) return out;
  for (const auto& [resource, milli] : record.amounts) {
    PutString(out, resource);
    PutLittleEndian(out, static_cast<uint64_t>(milli), 8);
  }
  return out;
}

// A time written by PutTime; out of WallClock's range only by corruption that kept its checksum.
std::optional<WallClock::time_point> TimeOf(PayloadReader& reader) {
  auto ms = static_cast<int64_t>(reader.Number(8));
  if (ms < -kMaxMs || ms > kMaxMs) return std::nullopt;
  return WallClock::time_point(std::chrono::milliseconds(ms));
}

// Whether a record of `type` can be of format `version` (each type came with a version).
bool Known(uint64_t version, uint64_t type) {
  if (version < 1 || version > kFormatVersion || type > 4) return false;
  if (type == 2) return version >= 2;
  if (type >= 3) return version >= 3;
  return true;
}

std::optional<JournalRecord> DecodePayload(std::string_view payload) {
  PayloadReader reader{payload};
  JournalRecord record;
  uint64_t version = reader.Number(1), type = reader.Number(1);
  if (!Known(version, type)) return std::nullopt;
  constexpr JournalRecord::Type kTypes[] = {
      JournalRecord::Type::kCharge, JournalRecord::Type::kRelease, JournalRecord::Type::kReleaseAt,
      JournalRecord::Type::kStart, JournalRecord::Type::kBook};
  record.type = kTypes[type];
  record.ns = reader.String();
  record.name = reader.String();
  record.uid = reader.String();
  const bool timedRelease = record.type == JournalRecord::Type::kRelease && version >= 3;
  if (record.type == JournalRecord::Type::kReleaseAt) {
    auto at = TimeOf(reader);
    if (!at) return std::nullopt;
    record.releaseAt = *at;
  } else if (record.type == JournalRecord::Type::kStart || timedRelease) {
    record.at = TimeOf(reader);
    if (!record.at) return std::nullopt;
  } else if (record.type == JournalRecord::Type::kBook) {
    record.book = reader.String();
  } else {
    uint64_t count = reader.Number(4);
    for (uint64_t i = 0; i < count && reader.ok; ++i) {
      std::string resource = reader.String();
      record.amounts[resource] = static_cast<int64_t>(reader.Number(8));
    }
  }
  if (!reader.ok || !reader.in.empty()) return std::nullopt;
  return record;
}

// The payload of the record framed at `data[offset]`, or nullopt when the frame is torn: its
// length runs past the end or its checksum does not match.
std::optional<std::string_view> FrameAt(std::string_view data, size_t offset) {
  if (data.size() - offset < kHeaderSize) return std::nullopt;
  uint64_t length = GetLittleEndian(data.substr(offset), 4);
  uint32_t crc = static_cast<uint32_t>(GetLittleEndian(data.substr(offset + 4), 4));
  if (length > kMaxPayload || length > data.size() - offset - kHeaderSize) return std::nullopt;
  std::string_view payload = data.substr(offset + kHeaderSize, length);
  if (Crc32(payload) != crc) return std::nullopt;
  return payload;
}

std::unexpected<Error> FailErrno(const std::string& what, int err = errno) {
  return Fail(what + ": " + std::strerror(err));
}

Status WriteAll(int fd, std::string_view data, const std::string& path) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return FailErrno("writing " + path);
    data.remove_prefix(static_cast<size_t>(n));
  }
  return {};
}

Result<std::string> ReadAll(int fd, const std::string& path) {
  std::string data;
  char buffer[1 << 16];
  for (;;) {
    ssize_t n = ::pread(fd, buffer, sizeof buffer, static_cast<off_t>(data.size()));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return FailErrno("reading " + path);
    if (n == 0) return data;
    data.append(buffer, static_cast<size_t>(n));
  }
}

// Makes a create, rename or unlink in `dir` durable.
Status SyncDir(const std::string& dir, const JournalOptions& options) {
  if (!options.sync) return {};
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return FailErrno("opening directory " + dir);
  int rc = ::fsync(fd);
  int err = errno;
  ::close(fd);
  if (rc != 0) return FailErrno("syncing directory " + dir, err);
  return {};
}

// Opens `path` for appending and takes an exclusive lock, so two processes never share a journal.
Result<int> OpenLocked(const std::string& path, int extraFlags) {
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC | extraFlags, 0600);
  if (fd < 0) return FailErrno("opening " + path);
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    int err = errno;
    ::close(fd);
    if (err == EWOULDBLOCK) return Fail(path + ": in use by another ledger");
    return FailErrno("locking " + path, err);
  }
  return fd;
}

// Not thread-safe: the ledger calls every method under its mutex.
class FileJournal final : public Journal {
 public:
  FileJournal(std::string path, std::string dir, int fd, uint64_t size, JournalOptions options)
      : path_(std::move(path)), dir_(std::move(dir)), options_(options), fd_(fd), size_(size) {}
  ~FileJournal() override { ::close(fd_); }

  Status Replay(const std::function<void(const JournalRecord&)>& apply) override {
    Result<std::string> data = ReadAll(fd_, path_);
    if (!data) return std::unexpected(data.error());
    size_t offset = 0;
    records_ = 0;
    while (offset < data->size()) {
      std::optional<std::string_view> payload = FrameAt(*data, offset);
      if (!payload) break;
      uint8_t version = payload->empty() ? 0 : static_cast<uint8_t>(payload->front());
      if (version > kFormatVersion) {
        // Intact, but written by a newer gpugate: refuse to start rather than cut it off.
        return Fail(path_ + ": record at byte " + std::to_string(offset) + " has format version " +
                    std::to_string(version) + "; this gpugate reads versions 1 to 3");
      }
      std::optional<JournalRecord> record = DecodePayload(*payload);
      if (!record) break;
      apply(*record);
      ++records_;
      offset += kHeaderSize + payload->size();
    }
    size_ = offset;
    if (offset == data->size()) return {};
    // A torn tail: cut it, so the next append does not land behind garbage.
    if (::ftruncate(fd_, static_cast<off_t>(offset)) != 0) return FailErrno("truncating " + path_);
    if (!Sync(fd_, /*dataOnly=*/false)) return FailErrno("syncing " + path_);
    return {};
  }

  Status Append(const JournalRecord& record) override {
    if (broken_) return Fail(path_ + ": unusable after a failed rollback");
    std::string framed = EncodeRecord(record);
    Status status = WriteAll(fd_, framed, path_);
    if (status && !Sync(fd_, /*dataOnly=*/true)) status = FailErrno("syncing " + path_);
    if (!status) {
      // Cut whatever part of the record reached the file; a record that later turns up after
      // a half one would be lost at replay.
      if (::ftruncate(fd_, static_cast<off_t>(size_)) != 0) {
        broken_ = true;
        return Fail(status.error().message + "; rolling back: " + std::strerror(errno));
      }
      return status;
    }
    size_ += framed.size();
    ++records_;
    return {};
  }

  Status Compact(const std::vector<JournalRecord>& live) override {
    std::string tmp = path_ + ".compact";
    std::string all;
    for (const JournalRecord& record : live) all += EncodeRecord(record);
    Result<int> fd = OpenLocked(tmp, O_TRUNC);
    if (!fd) return std::unexpected(fd.error());
    Status status = WriteAll(*fd, all, tmp);
    if (status && !Sync(*fd, /*dataOnly=*/false)) status = FailErrno("syncing " + tmp);
    if (status && ::rename(tmp.c_str(), path_.c_str()) != 0) {
      status = FailErrno("renaming " + tmp + " to " + path_);
    }
    if (!status) {
      ::close(*fd);
      ::unlink(tmp.c_str());
      return status;  // the old file and descriptor are untouched
    }
    ::close(fd_);
    fd_ = *fd;
    size_ = all.size();
    records_ = live.size();
    broken_ = false;  // the new file holds exactly the live set
    return SyncDir(dir_, options_);
  }

  bool ShouldCompact(size_t liveRecords) const override {
    return records_ > 2 * static_cast<uint64_t>(liveRecords) + 1024;
  }

 private:
  // fsync, or fdatasync when only the data must reach the disk (an append: the file's size is
  // data too); true when done or skipped (options_.sync false). errno says why on false.
  bool Sync(int fd, bool dataOnly) const {
    if (!options_.sync) return true;
    return (dataOnly ? ::fdatasync(fd) : ::fsync(fd)) == 0;
  }

  const std::string path_, dir_;
  const JournalOptions options_;
  int fd_;
  uint64_t size_;         // bytes of intact records; an append that fails is cut back to this
  uint64_t records_ = 0;  // records in the file
  bool broken_ = false;   // a failed append could not be cut back
};

}  // namespace

std::string EncodeRecord(const JournalRecord& record) {
  std::string payload = EncodePayload(record);
  std::string framed;
  framed.reserve(kHeaderSize + payload.size());
  PutLittleEndian(framed, payload.size(), 4);
  PutLittleEndian(framed, Crc32(payload), 4);
  return framed + payload;
}

Result<std::unique_ptr<Journal>> OpenFileJournal(const std::string& path, JournalOptions options) {
  std::filesystem::path parent = std::filesystem::path(path).parent_path();
  std::string dir = parent.empty() ? "." : parent.string();
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Fail("creating directory " + dir + ": " + ec.message());
  Result<int> fd = OpenLocked(path, 0);
  if (!fd) return std::unexpected(fd.error());
  struct stat st = {};
  Status status = ::fstat(*fd, &st) == 0 ? Status{} : FailErrno("stat " + path);
  // The file's directory entry, if we just created it.
  if (status) status = SyncDir(dir, options);
  if (!status) {
    ::close(*fd);
    return std::unexpected(status.error());
  }
  ::unlink((path + ".compact").c_str());  // left by a crash during compaction; never live
  return std::make_unique<FileJournal>(path, dir, *fd, static_cast<uint64_t>(st.st_size), options);
}

}  // namespace gpugate::quota
