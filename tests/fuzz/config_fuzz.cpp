// The config loader as `trainer --config FILE --set KEY=VALUE...` runs it
// (train/trainer_setup.cpp, resolve_config): the input up to its first NUL
// byte is the JSON file, each further NUL-separated part one --set
// assignment; a config that loads must also read back from its own JSON.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fuzz_support.h"
#include "util/config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static nmt::fuzz::ScratchFile file("config.json");
  std::vector<std::string> parts(1);
  for (size_t i = 0; i < size; ++i) {
    if (data[i] == 0) {
      parts.emplace_back();
    } else {
      parts.back().push_back(static_cast<char>(data[i]));
    }
  }
  file.write(reinterpret_cast<const uint8_t*>(parts[0].data()), parts[0].size());
  nmt::fuzz::expect_only_our_errors([&] {
    nlohmann::json j = nmt::read_json_file(file.path());
    for (size_t k = 1; k < parts.size(); ++k) nmt::apply_override(j, parts[k]);
    nmt::Config config = nmt::config_from_json(j, file.path());
    config.validate();
    nmt::config_from_json(nmt::config_to_json(config), "round trip");  // what a resolved config.json reads back as
  });
  return 0;
}
