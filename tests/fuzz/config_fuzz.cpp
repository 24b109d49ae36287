// The config loader as `trainer --config FILE --set KEY=VALUE...` runs it
// (train/trainer_setup.cpp, resolve_config): the input up to its first NUL
// byte is the JSON file, each further NUL-separated part one --set
// assignment; a config that loads must also be written and read back.
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
    // The trainer writes the resolved config as config.json and reads it back.
    const std::string written = nmt::config_to_json(config).dump(2);
    nmt::config_from_json(nlohmann::json::parse(written), "round trip");
  });
  return 0;
}
