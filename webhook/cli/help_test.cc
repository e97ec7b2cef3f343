#include "cli/help.h"

#include <gtest/gtest.h>

#include <sstream>

namespace gpugate::cli {
namespace {

constexpr FlagSpec kFlags[] = {
    {.name = "config", .valueName = "FILE", .help = "the file\nread once"},
    {.name = "dry-run", .takesValue = false, .help = "change nothing"},
    {.name = "output", .shortName = 'o', .valueName = "FORMAT", .help = "table or json"},
    kHelpFlag,
};
constexpr std::string_view kForms[] = {"[--config FILE] [--dry-run]\n[-o FORMAT]", "--version"};
constexpr CommandHelp kHelp = {
    .name = "demo", .forms = kForms, .summary = "Does a demo.\nTwice.", .flags = kFlags};

TEST(CommandHelp, PrintsFormsSummaryAndOneEntryPerFlag) {
  std::ostringstream out;
  PrintCommandHelp(out, kHelp, "gpugate demo");
  EXPECT_EQ(out.str(),
            "Usage: gpugate demo [--config FILE] [--dry-run]\n"
            "                    [-o FORMAT]\n"
            "   or: gpugate demo --version\n"
            "\n"
            "Does a demo.\n"
            "Twice.\n"
            "\n"
            "Flags:\n"
            "  --config FILE         the file\n"
            "                        read once\n"
            "  --dry-run             change nothing\n"
            "  -o, --output FORMAT   table or json\n"
            "  -h, --help            print this help\n");
}

TEST(CommandHelp, EntryInTheTopLevelUsage) {
  std::ostringstream out;
  PrintCommandEntry(out, kHelp);
  EXPECT_EQ(out.str(),
            "  gpugate demo [--config FILE] [--dry-run]\n"
            "               [-o FORMAT]\n"
            "  gpugate demo --version\n"
            "      Does a demo.\n"
            "      Twice.\n");
}

}  // namespace
}  // namespace gpugate::cli
