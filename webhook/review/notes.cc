#include "review/notes.h"

#include <algorithm>
#include <map>
#include <set>

#include "policy/rule.h"

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

// The last warning when some are left out: how many, and where they are whole. `gpugate check`
// lists rule findings; a quota finding needs the cluster's state, which `gpugate audit` reads.
std::string MoreWarnings(size_t n, bool quota) {
  return "and " + std::to_string(n) + " more gpugate warning" + (n == 1 ? "" : "s") +
         " not shown (the API limits warnings): their whole text is in gpugate's log and this "
         "request's audit annotations, and " +
         (quota ? "gpugate audit" : "gpugate check") + " lists them all";
}

// Longest the summary can be: its count has at most 20 digits.
const size_t kSummaryRunes = MoreWarnings(0, true).size() + 19;

// The warning for a finding whose short form does not fit either (a field path of hundreds of
// characters, in a custom resource that nothing validated).
std::string TooLongToShow(std::string_view rule) {
  return "a gpugate " + std::string(rule) +
         " finding too long for a warning: its whole text is in gpugate's log and this request's "
         "audit annotations";
}

// The start of the UTF-8 sequence holding s[i] (a cut there leaves whole characters).
size_t SequenceStart(std::string_view s, size_t i) {
  while (i > 0 && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) --i;
  return i;
}

// `subject` with each quoted name longer than 2 * keep + 1 bytes shortened to its first and last
// `keep` bytes around "…"; the path around the names stays whole.
std::string ElideQuoted(std::string_view subject, size_t keep) {
  std::string out;
  for (size_t i = 0; i < subject.size();) {
    if (subject[i] != '"') {
      out += subject[i++];
      continue;
    }
    size_t end = i + 1;
    while (end < subject.size() && subject[end] != '"') end += subject[end] == '\\' ? 2 : 1;
    const std::string_view name = subject.substr(i + 1, std::min(end, subject.size()) - i - 1);
    if (name.size() <= 2 * keep + 1) {
      out.append(subject, i, end + 1 - i);
    } else {
      out += '"';
      out += name.substr(0, SequenceStart(name, keep));
      out += "\xE2\x80\xA6";  // …
      out += name.substr(SequenceStart(name, name.size() - keep));
      out += '"';
    }
    i = end + 1;
  }
  return out;
}

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

std::string ShortWarning(std::string_view rule, std::string_view subject, std::string_view fix) {
  auto make = [&](std::string_view about, bool where) {
    std::string out(about);
    if (!out.empty()) out += ": ";
    out += fix;
    out += " (gpugate rule ";
    out += rule;
    out += where ? "; whole text in gpugate's log and audit annotations)" : ")";
    return out;
  };
  size_t runes = 0;
  for (const auto& [about, where] :
       {std::pair{std::string(subject), true}, std::pair{std::string(subject), false},
        std::pair{ElideQuoted(subject, 12), false}}) {
    std::string text = Printable(make(about, where), runes);
    if (runes <= kWarningMaxRunes) return text;
  }
  return "";
}

Warnings WarningsWithinLimits(const std::vector<WarningText>& findings) {
  struct Text {
    std::string text;
    size_t runes;
    size_t index;  // into `findings`
    bool whole;
  };
  std::vector<Text> texts;
  std::set<std::string, std::less<>> seen;
  Warnings out;
  for (size_t i = 0; i < findings.size(); ++i) {
    const WarningText& f = findings[i];
    size_t runes = 0;
    std::string text = Printable(f.text, runes);
    if (text.empty() || !seen.insert(text).second) continue;
    if (runes <= kWarningMaxRunes) {
      texts.push_back({std::move(text), runes, i, true});
      continue;
    }
    text = ShortWarning(f.rule, f.subject, f.fix);
    if (text.empty()) text = TooLongToShow(f.rule);
    text = Printable(text, runes);
    texts.push_back({std::move(text), runes, i, false});
  }
  auto fits = [](const Text& t, size_t count, size_t total, size_t reserve) {
    return count + 1 <= kMaxWarnings && total + t.runes + reserve <= kWarningsMaxRunes;
  };
  size_t total = 0;
  bool all = texts.size() <= kMaxWarnings;
  for (const Text& t : texts) {
    if (!(all = all && fits(t, 0, total, 0))) break;
    total += t.runes;
  }
  // When some must go: whole warnings in order, leaving room (one warning, its length) for the
  // summary of the rest.
  size_t kept = 0;
  total = 0;
  while (kept < texts.size() &&
         (all || fits(texts[kept], out.sent.size() + 1, total, kSummaryRunes))) {
    total += texts[kept].runes;
    if (!texts[kept].whole) out.notWhole.push_back(texts[kept].index);
    out.sent.push_back(std::move(texts[kept].text));
    ++kept;
  }
  if (kept == texts.size()) return out;
  bool quota = false;
  for (size_t k = kept; k < texts.size(); ++k) {
    out.notWhole.push_back(texts[k].index);
    quota = quota || findings[texts[k].index].quota;
  }
  out.sent.push_back(MoreWarnings(texts.size() - kept, quota));
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
  std::vector<WarningText> warnings;
  std::map<std::string, std::vector<std::string>> audited;  // key -> messages, sorted by key
  std::set<std::pair<std::string, std::string>> tally;
  for (const RuleFinding& f : findings) {
    const std::string mode(policy::ModeName(f.mode));
    tally.emplace(f.rule, mode);
    notes.findings.push_back({f.rule, mode, f.message});
    if (f.mode == policy::Mode::kWarn) {
      warnings.push_back({.text = f.message,
                          .rule = f.rule,
                          .subject = f.subject,
                          .fix = f.fix.empty() ? std::string(policy::FixFor(f.rule)) : f.fix,
                          .quota = f.rule == policy::kQuotaRule});
    }
    if (f.mode == policy::Mode::kAudit) audited[f.rule].push_back(f.message);
  }
  Warnings sent = WarningsWithinLimits(warnings);
  notes.warnings = std::move(sent.sent);
  for (size_t i : sent.notWhole) {
    audited[std::string(kWarningsAnnotationKey)].push_back(warnings[i].text);
  }
  for (const auto& [key, messages] : audited) {
    // Rule names are fixed and valid keys (notes_test.cc checks each); a bad one is never sent.
    if (!IsAuditAnnotationKey(key)) continue;
    size_t runes = 0;
    notes.auditAnnotations.push_back({key, Printable(AuditValue(messages), runes)});
  }
  for (const auto& [rule, mode] : tally) notes.violated.push_back({rule, mode});
  return notes;
}

}  // namespace gpugate::review
