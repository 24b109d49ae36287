#include "storage/checkpoint_average.h"

#include <map>

#include <torch/torch.h>

#include "util/config.h"
#include "util/error.h"

namespace nmt::storage {
namespace {

std::string shape_of(const torch::Tensor& t) {
  std::string out = "[";
  for (int64_t i = 0; i < t.dim(); ++i) out += (i ? ", " : "") + std::to_string(t.size(i));
  return out + "]";
}

// Checks that `next` holds the same tensors as the running sum, by name, shape and kind.
void check_same_model(const StateDict& sum, const StateDict& next, const std::string& first,
                      const std::string& path) {
  for (const auto& [name, tensor] : next) {
    auto it = sum.find(name);
    if (it == sum.end()) {
      throw DataError("Cannot average " + path + " with " + first + ": it has a tensor " + name +
                      " that the other does not.");
    }
    if (!it->second.sizes().equals(tensor.sizes())) {
      throw DataError("Cannot average " + path + " with " + first + ": " + name + " is " + shape_of(tensor) +
                      " there but " + shape_of(it->second) + " in " + first + ".");
    }
  }
  if (next.size() != sum.size()) {
    throw DataError("Cannot average " + path + " with " + first + ": they hold different sets of tensors.");
  }
}

void add_into(StateDict& sum, const StateDict& next, const std::string& path) {
  for (auto& [name, total] : sum) {
    const torch::Tensor& t = next.at(name);
    if (total.is_floating_point()) {
      total.add_(t.to(torch::kDouble));
    } else if (!torch::equal(total, t)) {
      throw DataError("Cannot average " + path + ": its integer tensor " + name + " differs from the others'.");
    }
  }
}

}  // namespace

Checkpoint average_checkpoints(const std::vector<std::string>& paths) {
  if (paths.empty()) throw UsageError("Averaging needs at least one checkpoint.");
  Checkpoint newest;
  StateDict sum;
  std::map<std::string, torch::ScalarType> dtypes;
  std::vector<int64_t> steps;
  ModelConfig model_config;
  for (const auto& path : paths) {
    Checkpoint c = load_checkpoint(path);
    const ModelConfig config = model_config_from_json(c.config.at("model"), path);
    if (sum.empty()) {
      model_config = config;
      for (const auto& [name, t] : c.weights) {
        dtypes[name] = t.scalar_type();
        sum[name] = t.is_floating_point() ? t.to(torch::kDouble) : t.clone();
      }
    } else {
      if (!same_architecture(config, model_config)) {
        throw DataError("Cannot average " + path + " with " + paths.front() +
                        ": they were trained with different model configurations.");
      }
      check_same_model(sum, c.weights, paths.front(), path);
      add_into(sum, c.weights, path);
    }
    steps.push_back(c.step());
    if (newest.config.is_null() || c.step() >= newest.step()) {
      c.weights.clear();
      newest = std::move(c);
    }
  }
  const double n = static_cast<double>(paths.size());
  for (auto& [name, total] : sum) {
    if (total.is_floating_point()) total = (total / n).to(dtypes.at(name));
  }
  newest.weights = std::move(sum);
  newest.optimizer.clear();
  newest.rng.clear();
  newest.state["averaged_steps"] = steps;
  return newest;
}

}  // namespace nmt::storage
