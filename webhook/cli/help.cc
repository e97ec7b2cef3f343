#include "cli/help.h"

#include <algorithm>
#include <string>

namespace gpugate::cli {
namespace {

// Writes `text` after `prefix`, starting each line after the first with `indent` spaces.
void WriteIndented(std::ostream& out, std::string_view prefix, std::string_view text,
                   size_t indent) {
  out << prefix;
  for (size_t start = 0;;) {
    const size_t end = text.find('\n', start);
    out << text.substr(start, end - start) << "\n";
    if (end == std::string_view::npos) return;
    start = end + 1;
    out << std::string(indent, ' ');
  }
}

// "-n, --namespace NS", "--config FILE" or "--insecure-skip-tls-verify".
std::string FlagLabel(const FlagSpec& flag) {
  std::string label;
  if (flag.shortName != '\0') label = std::string("-") + flag.shortName + ", ";
  label += "--" + std::string(flag.name);
  if (flag.takesValue) label += " " + std::string(flag.valueName);
  return label;
}

}  // namespace

void PrintCommandHelp(std::ostream& out, const CommandHelp& help, std::string_view invokedAs) {
  for (size_t i = 0; i < help.forms.size(); ++i) {
    std::string prefix = (i == 0 ? "Usage: " : "   or: ") + std::string(invokedAs);
    if (help.forms[i].empty()) {
      out << prefix << "\n";
      continue;
    }
    prefix += " ";
    WriteIndented(out, prefix, help.forms[i], prefix.size());
  }
  out << "\n";
  WriteIndented(out, "", help.summary, 0);
  out << "\nFlags:\n";
  size_t width = 0;
  for (const FlagSpec& flag : help.flags) width = std::max(width, FlagLabel(flag).size());
  const size_t column = 2 + width + 3;
  for (const FlagSpec& flag : help.flags) {
    std::string label = "  " + FlagLabel(flag);
    label.resize(column, ' ');
    WriteIndented(out, label, flag.help, column);
  }
}

void PrintCommandEntry(std::ostream& out, const CommandHelp& help) {
  const std::string prefix = "  gpugate " + std::string(help.name) + " ";
  for (std::string_view form : help.forms) {
    if (form.empty()) {
      out << "  gpugate " << help.name << "\n";
    } else {
      WriteIndented(out, prefix, form, prefix.size());
    }
  }
  WriteIndented(out, "      ", help.summary, 6);
}

}  // namespace gpugate::cli
