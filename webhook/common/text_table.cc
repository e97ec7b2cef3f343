#include "common/text_table.h"

#include <algorithm>

namespace gpugate {
namespace {

constexpr const char* kGap = "   ";  // kubectl's column padding

std::string RenderLine(const std::vector<std::string>& cells, const std::vector<size_t>& widths) {
  std::string line;
  for (size_t c = 0; c < cells.size(); ++c) {
    if (c > 0) line += kGap;
    line += cells[c];
    if (c + 1 < cells.size()) line.append(widths[c] - std::min(widths[c], cells[c].size()), ' ');
  }
  line.erase(line.find_last_not_of(' ') + 1);
  return line + "\n";
}

}  // namespace

std::string RenderTable(const std::vector<std::string>& header,
                        const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> widths(header.size());
  for (size_t c = 0; c < header.size(); ++c) {
    widths[c] = header[c].size();
    for (const auto& row : rows) widths[c] = std::max(widths[c], row[c].size());
  }
  std::string out = RenderLine(header, widths);
  for (const auto& row : rows) out += RenderLine(row, widths);
  return out;
}

}  // namespace gpugate
