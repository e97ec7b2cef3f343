#include "cli/flags.h"

#include <algorithm>

namespace gpugate::cli {
namespace {

// One flag argument split into the spec it names, how it was spelled, and an attached value.
struct Split {
  const FlagSpec* spec = nullptr;
  std::string spelled;  // "--name" or "-x", for messages
  std::optional<std::string> inlineValue;
};

Result<Split> SplitFlag(const std::string& arg, std::span<const FlagSpec> specs) {
  Split split;
  if (arg.starts_with("--")) {
    std::string name = arg.substr(2);
    if (size_t eq = name.find('='); eq != std::string::npos) {
      split.inlineValue = name.substr(eq + 1);
      name.resize(eq);
    }
    split.spelled = "--" + name;
    auto it =
        std::find_if(specs.begin(), specs.end(), [&](const FlagSpec& s) { return s.name == name; });
    if (it != specs.end()) split.spec = &*it;
  } else {
    // "-o", "-o=json" or "-ojson".
    char letter = arg[1];
    split.spelled = std::string("-") + letter;
    if (arg.size() > 2) split.inlineValue = arg.substr(arg[2] == '=' ? 3 : 2);
    auto it = std::find_if(specs.begin(), specs.end(),
                           [&](const FlagSpec& s) { return s.shortName == letter; });
    if (it != specs.end()) split.spec = &*it;
  }
  if (!split.spec) return Fail("unknown flag " + split.spelled);
  return split;
}

}  // namespace

Result<Flags> Flags::Parse(std::span<const std::string> args, std::span<const FlagSpec> specs) {
  Flags flags;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (!arg.starts_with("-") || arg == "-" || arg == "--") {
      flags.positional_.push_back(arg);
      continue;
    }
    auto split = SplitFlag(arg, specs);
    if (!split) return std::unexpected(split.error());
    std::vector<std::string>& values = flags.values_[std::string(split->spec->name)];
    if (!split->spec->takesValue) {
      if (split->inlineValue) return Fail("flag " + split->spelled + " takes no value");
      values.push_back("true");
      continue;
    }
    if (!split->inlineValue) {
      if (i + 1 >= args.size()) return Fail("flag " + split->spelled + " needs a value");
      split->inlineValue = args[++i];
    }
    values.push_back(*split->inlineValue);
  }
  return flags;
}

std::optional<std::string> Flags::Get(std::string_view name) const {
  auto it = values_.find(std::string(name));
  if (it == values_.end() || it->second.empty()) return std::nullopt;
  return it->second.back();
}

std::vector<std::string> Flags::GetAll(std::string_view name) const {
  auto it = values_.find(std::string(name));
  return it == values_.end() ? std::vector<std::string>{} : it->second;
}

}  // namespace gpugate::cli
