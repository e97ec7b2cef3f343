#include "cli/flags.h"

#include <algorithm>

namespace gpugate::cli {

Result<Flags> Flags::Parse(std::span<const std::string> args, std::span<const FlagSpec> specs) {
  Flags flags;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg.rfind("--", 0) != 0 || arg == "--") {
      flags.positional_.push_back(arg);
      continue;
    }
    std::string name = arg.substr(2);
    std::optional<std::string> inlineValue;
    if (size_t eq = name.find('='); eq != std::string::npos) {
      inlineValue = name.substr(eq + 1);
      name.resize(eq);
    }
    auto spec = std::find_if(specs.begin(), specs.end(),
                             [&](const FlagSpec& s) { return s.name == name; });
    if (spec == specs.end()) return Fail("unknown flag --" + name);
    if (!spec->takesValue) {
      if (inlineValue) return Fail("flag --" + name + " takes no value");
      flags.values_[name].push_back("true");
      continue;
    }
    if (!inlineValue) {
      if (i + 1 >= args.size()) return Fail("flag --" + name + " needs a value");
      inlineValue = args[++i];
    }
    flags.values_[name].push_back(*inlineValue);
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
