// An SVG picture of a run: training and validation loss against steps (left
// axis) and validation BLEU (right axis, 0-100).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace nmt::train {

// `lines` are metrics.jsonl objects: training lines carry "loss", validation
// lines "valid_loss" and, when scored, "valid_bleu".
std::string render_training_svg(const std::vector<nlohmann::json>& lines);

}  // namespace nmt::train
