// The help text of gpugate's subcommands. Each subcommand's file holds its CommandHelp beside its
// flag table (serve_command.cc, certs_command.cc, quota_command.cc); `gpugate CMD --help` prints
// it whole and `gpugate --help` prints every command's forms and summary from the same words.
#pragma once

#include <ostream>
#include <span>
#include <string_view>

#include "cli/flags.h"

namespace gpugate::cli {

// --help and -h, the last entry of every subcommand's flag table.
inline constexpr FlagSpec kHelpFlag = {
    .name = "help", .takesValue = false, .shortName = 'h', .help = "print this help"};

struct CommandHelp {
  std::string_view name;  // "serve", as in `gpugate serve`
  // Each way to call it: the arguments after the command. A '\n' continues the form on a line
  // indented under its first argument.
  std::span<const std::string_view> forms;
  std::string_view summary;         // what it does; lines of at most 90 columns, '\n' between
  std::span<const FlagSpec> flags;  // described in this order
};

// What `CMD --help` prints: "Usage: <invokedAs> <form>" ("   or: " for further forms), the
// summary, then one entry per flag. `invokedAs` is "gpugate quota" or "kubectl gpuquota".
void PrintCommandHelp(std::ostream& out, const CommandHelp& help, std::string_view invokedAs);

// The command's entry in `gpugate --help`: each form after "  gpugate <name>", the summary
// indented below them.
void PrintCommandEntry(std::ostream& out, const CommandHelp& help);

}  // namespace gpugate::cli
