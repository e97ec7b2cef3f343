// Local calendar dates as the usage layer writes and reads them: "2026-11-01" (ISO 8601), and
// months "2026-11" for reports.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "common/result.h"

namespace gpugate::usage {

// "2026-11-01".
std::string FormatDate(std::chrono::local_days day);

// "2026-11-01" -> that day; anything else (other lengths, a day the month does not have) is an
// error whose message is the reason alone.
Result<std::chrono::local_days> ParseDate(std::string_view text);

// "2026-11" -> that month.
Result<std::chrono::year_month> ParseMonth(std::string_view text);

}  // namespace gpugate::usage
