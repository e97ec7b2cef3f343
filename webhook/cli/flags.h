// A small command-line flag parser: `--name value`, `--name=value` and boolean `--name`, and for
// flags with a one-letter alias also `-o value`, `-o=value` and `-ovalue` (as kubectl's `-ojson`).
// Unknown flags and missing values are errors naming the flag. A lone `-` is positional.
#pragma once

#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace gpugate::cli {

struct FlagSpec {
  std::string_view name;  // without the leading dashes
  bool takesValue = true;
  char shortName = '\0';  // `-x` alias, '\0' for none; values are stored under `name`
  // For `--help` (cli/help.h), so a flag and its description live in one table: what the value
  // is ("FILE" in `--config FILE`), and what the flag does, '\n' between lines.
  std::string_view valueName;
  std::string_view help;
};

class Flags {
 public:
  static Result<Flags> Parse(std::span<const std::string> args, std::span<const FlagSpec> specs);

  bool Has(std::string_view name) const { return values_.count(std::string(name)) > 0; }
  // The last value given for `name`.
  std::optional<std::string> Get(std::string_view name) const;
  // Every value given for `name`, in order (for repeatable flags such as --host).
  std::vector<std::string> GetAll(std::string_view name) const;
  const std::vector<std::string>& positional() const { return positional_; }

 private:
  std::map<std::string, std::vector<std::string>> values_;
  std::vector<std::string> positional_;
};

}  // namespace gpugate::cli
