#include "review/notes.h"

#include <algorithm>
#include <map>
#include <set>

namespace gpugate::review {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// The length of the UTF-8 sequence starting at s[i], or 0 when it is not a valid one (overlong,
// a surrogate, past U+10FFFF, truncated).
size_t SequenceLength(std::string_view s, size_t i) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char b = byte(i);
  size_t n = b < 0x80 ? 1 : (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xE ? 3 : (b >> 3) == 0x1E ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  uint32_t cp = n == 1 ? b : b & (0x7F >> n);
  for (size_t k = 1; k < n; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (byte(i + k) & 0x3F);
  }
  static constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMin[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

// Valid UTF-8 without control characters (C0, DEL, C1: what Go's unicode.IsControl reports),
// each offender replaced by U+FFFD; sets `runes` to its length in code points.
std::string Printable(std::string_view s, size_t& runes) {
  std::string out;
  out.reserve(s.size());
  runes = 0;
  for (size_t i = 0; i < s.size();) {
    const size_t n = SequenceLength(s, i);
    const unsigned char b = static_cast<unsigned char>(s[i]);
    const bool c0 = n == 1 && (b < 0x20 || b == 0x7F);
    const bool c1 = n == 2 && b == 0xC2 && static_cast<unsigned char>(s[i + 1]) < 0xA0;
    if (n == 0 || c0 || c1) {
      out += kReplacement;
      i += n == 0 ? 1 : n;
    } else {
      out.append(s, i, n);
      i += n;
    }
    ++runes;
  }
  return out;
}

std::string MoreWarnings(size_t n) {
  return "and " + std::to_string(n) + " more gpugate warning" + (n == 1 ? "" : "s") +
         " not shown (the API limits warnings); gpugate check lists them all";
}

// Longest the summary can be: its count has at most 20 digits.
const size_t kSummaryRunes = MoreWarnings(0).size() + 19;

// A rule's messages joined by "; ", whole messages up to kAuditValueMaxBytes (the first always),
// then "; and N more".
std::string AuditValue(const std::vector<std::string>& messages) {
  std::string value;
  size_t kept = 0;
  for (const std::string& m : messages) {
    if (kept > 0 && value.size() + 2 + m.size() > kAuditValueMaxBytes) break;
    if (kept > 0) value += "; ";
    value += m;
    ++kept;
  }
  if (kept < messages.size()) value += "; and " + std::to_string(messages.size() - kept) + " more";
  return value;
}

}  // namespace

std::vector<std::string> WarningsWithinLimits(const std::vector<std::string>& messages) {
  struct Text {
    std::string text;
    size_t runes;
  };
  std::vector<Text> texts;
  std::set<std::string, std::less<>> seen;
  for (const std::string& message : messages) {
    size_t runes = 0;
    std::string text = Printable(message, runes);
    if (!text.empty() && seen.insert(text).second) texts.push_back({std::move(text), runes});
  }
  auto fits = [](const Text& t, size_t count, size_t total, size_t reserve) {
    return t.runes <= kWarningMaxRunes && count + 1 <= kMaxWarnings &&
           total + t.runes + reserve <= kWarningsMaxRunes;
  };
  size_t total = 0;
  bool all = texts.size() <= kMaxWarnings;
  for (const Text& t : texts) {
    if (!(all = all && fits(t, 0, total, 0))) break;
    total += t.runes;
  }
  std::vector<std::string> out;
  if (all) {
    for (Text& t : texts) out.push_back(std::move(t.text));
    return out;
  }
  // Some must go: keep whole messages in order, leaving room (one warning, its length) for the
  // summary of the rest.
  total = 0;
  size_t kept = 0;
  while (kept < texts.size() && fits(texts[kept], out.size() + 1, total, kSummaryRunes)) {
    total += texts[kept].runes;
    out.push_back(std::move(texts[kept].text));
    ++kept;
  }
  out.push_back(MoreWarnings(texts.size() - kept));
  return out;
}

bool IsAuditAnnotationKey(std::string_view key) {
  if (key.empty() || key.size() > 63) return false;
  auto alnum = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
  };
  if (!alnum(key.front()) || !alnum(key.back())) return false;
  return std::all_of(key.begin(), key.end(),
                     [&](char c) { return alnum(c) || c == '-' || c == '_' || c == '.'; });
}

Notes NotesFor(std::span<const RuleFinding> findings) {
  Notes notes;
  if (findings.empty()) return notes;  // the usual case: nothing to build
  std::vector<std::string> warnings;
  std::map<std::string, std::vector<std::string>> audited;  // rule -> messages, sorted by rule
  std::set<std::pair<std::string, std::string>> tally;
  for (const RuleFinding& f : findings) {
    tally.emplace(f.rule, std::string(policy::ModeName(f.mode)));
    if (f.mode == policy::Mode::kWarn) warnings.push_back(f.message);
    if (f.mode == policy::Mode::kAudit) audited[f.rule].push_back(f.message);
  }
  notes.warnings = WarningsWithinLimits(warnings);
  for (const auto& [rule, messages] : audited) {
    // Rule names are fixed and valid keys (notes_test.cc checks each); a bad one is never sent.
    if (!IsAuditAnnotationKey(rule)) continue;
    size_t runes = 0;
    notes.auditAnnotations.push_back({rule, Printable(AuditValue(messages), runes)});
  }
  for (const auto& [rule, mode] : tally) notes.violated.push_back({rule, mode});
  return notes;
}

}  // namespace gpugate::review
