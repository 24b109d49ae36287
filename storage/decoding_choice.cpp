#include "storage/decoding_choice.h"

#include <cmath>
#include <filesystem>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "util/atomic_file.h"
#include "util/config.h"
#include "util/error.h"

namespace nmt::storage {

DecodingChoice choose_decoding(const std::vector<DecodingTrial>& trials, const std::string& checkpoint) {
  if (trials.empty()) throw std::invalid_argument("No decoding trials to choose from.");
  const DecodingTrial* best = &trials.front();
  for (const auto& t : trials) {
    if (t.bleu > best->bleu) best = &t;
  }
  return {best->beam, best->length_penalty, best->bleu, checkpoint, trials};
}

void write_decoding_choice(const std::string& path, const DecodingChoice& choice) {
  nlohmann::json trials = nlohmann::json::array();
  for (const auto& t : choice.trials) {
    trials.push_back({{"beam", t.beam}, {"length_penalty", t.length_penalty}, {"bleu", t.bleu}});
  }
  const nlohmann::json j = {{"beam", choice.beam},
                            {"length_penalty", choice.length_penalty},
                            {"bleu", choice.bleu},
                            {"checkpoint", choice.checkpoint},
                            {"trials", trials}};
  write_file_atomically(path, j.dump(2) + "\n");
}

std::optional<DecodingChoice> read_decoding_choice(const std::string& path) {
  if (!std::filesystem::exists(path)) return std::nullopt;
  DecodingChoice c;
  try {
    const auto j = read_json_file(path);
    c.beam = j.at("beam").get<int64_t>();
    c.length_penalty = j.at("length_penalty").get<double>();
    c.bleu = j.value("bleu", 0.0);
    c.checkpoint = j.value("checkpoint", std::string());
  } catch (const std::exception& e) {
    throw DataError("The decoding choice " + path + " is unreadable (" + e.what() +
                    "); remove it to decode with the translator's defaults.");
  }
  if (c.beam < 1 || c.beam > 1024 || !std::isfinite(c.length_penalty) || c.length_penalty < 0) {
    throw DataError("The decoding choice " + path + " holds beam " + std::to_string(c.beam) + " and length penalty " +
                    std::to_string(c.length_penalty) + ", out of range; remove it to decode with the translator's "
                    "defaults.");
  }
  return c;
}

}  // namespace nmt::storage
