// An SVG picture of a run: training and validation loss against steps (left
// axis) and validation BLEU (right axis, 0-100); below it, when the lines
// carry them, the process's resident and peak memory against steps.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace nmt::train {

// `lines` are metrics.jsonl objects: training lines carry "loss", validation
// lines "valid_loss" and, when scored, "valid_bleu"; training lines may carry
// "rss_mib" and "peak_rss_mib".
std::string render_training_svg(const std::vector<nlohmann::json>& lines);

}  // namespace nmt::train
