// Columns as kubectl prints them: a header row, then one row per line, each column padded to its
// widest cell with three spaces between columns, the last column unpadded, no trailing spaces.
#pragma once

#include <string>
#include <vector>

namespace gpugate {

// Every row has the header's number of cells. Widths count bytes: cells other than the last
// are expected to be ASCII (names, numbers); the last (a message) may hold anything.
std::string RenderTable(const std::vector<std::string>& header,
                        const std::vector<std::vector<std::string>>& rows);

}  // namespace gpugate
