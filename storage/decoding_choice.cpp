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
  DecodingChoice choice;
  choice.beam = best->beam;
  choice.length_penalty = best->length_penalty;
  choice.bleu = best->bleu;
  choice.checkpoint = checkpoint;
  choice.trials = trials;
  return choice;
}

void write_decoding_choice(const std::string& path, const DecodingChoice& choice) {
  nlohmann::json trials = nlohmann::json::array();
  for (const auto& t : choice.trials) {
    trials.push_back({{"beam", t.beam}, {"length_penalty", t.length_penalty}, {"bleu", t.bleu}});
  }
  nlohmann::json j = {{"beam", choice.beam},
                      {"length_penalty", choice.length_penalty},
                      {"bleu", choice.bleu},
                      {"checkpoint", choice.checkpoint},
                      {"trials", trials}};
  if (!choice.engine.empty()) j["engine"] = choice.engine;
  if (choice.length_penalty_form != "gnmt") j["length_penalty_form"] = choice.length_penalty_form;
  if (choice.min_length) j["min_length"] = *choice.min_length;
  if (choice.max_len_a) j["max_len_a"] = *choice.max_len_a;
  if (choice.max_len_b) j["max_len_b"] = *choice.max_len_b;
  if (choice.ctranslate2_prefix) j["ctranslate2_prefix"] = true;
  if (choice.replace_unknowns) j["replace_unknowns"] = true;
  if (choice.alignment_layer) j["alignment_layer"] = *choice.alignment_layer;
  if (choice.alignment_heads != 0) j["alignment_heads"] = choice.alignment_heads;
  if (!choice.target_tag.empty()) j["target_tag"] = choice.target_tag;
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
    c.engine = j.value("engine", std::string());
    c.length_penalty_form = j.value("length_penalty_form", std::string("gnmt"));
    if (j.contains("min_length")) c.min_length = j.at("min_length").get<int64_t>();
    if (j.contains("max_len_a")) c.max_len_a = j.at("max_len_a").get<double>();
    if (j.contains("max_len_b")) c.max_len_b = j.at("max_len_b").get<int64_t>();
    c.ctranslate2_prefix = j.value("ctranslate2_prefix", false);
    c.replace_unknowns = j.value("replace_unknowns", false);
    if (j.contains("alignment_layer")) c.alignment_layer = j.at("alignment_layer").get<int64_t>();
    c.alignment_heads = j.value("alignment_heads", int64_t{0});
    c.target_tag = j.value("target_tag", std::string());
  } catch (const std::exception& e) {
    throw DataError("The decoding choice " + path + " is unreadable (" + e.what() +
                    "); remove it to decode with the translator's defaults.");
  }
  if (c.length_penalty_form != "gnmt" && c.length_penalty_form != "power") {
    throw DataError("The decoding choice " + path + " names the length penalty form \"" + c.length_penalty_form +
                    "\"; \"gnmt\" and \"power\" exist.");
  }
  if ((c.min_length && (*c.min_length < 0 || *c.min_length > 100000)) || (c.max_len_a && !(*c.max_len_a >= 0)) ||
      (c.max_len_b && *c.max_len_b < 0) || c.alignment_heads < 0) {
    throw DataError("The decoding choice " + path + " holds an output length or alignment out of range; remove it to decode with "
                    "the translator's defaults.");
  }
  if (c.beam < 1 || c.beam > 1024 || !std::isfinite(c.length_penalty) || c.length_penalty < 0) {
    throw DataError("The decoding choice " + path + " holds beam " + std::to_string(c.beam) + " and length penalty " +
                    std::to_string(c.length_penalty) + ", out of range; remove it to decode with the translator's "
                    "defaults.");
  }
  return c;
}

}  // namespace nmt::storage
