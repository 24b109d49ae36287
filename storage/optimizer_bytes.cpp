#include "storage/optimizer_bytes.h"

#include <memory>
#include <sstream>
#include <utility>
#include <vector>

#include <torch/torch.h>

#include "storage/state_dict.h"
#include "util/error.h"

namespace nmt::storage {
namespace {

constexpr char kMagic[] = {'N', 'M', 'T', 'A', 'D', 'A', 'M', '\x01'};
constexpr size_t kMagicSize = sizeof(kMagic);

using torch::optim::AdamOptions;
using torch::optim::AdamParamState;

// How LibTorch's Adam finds a parameter's state.
std::string state_key(const torch::Tensor& param) { return c10::guts::to_string(param.unsafeGetTensorImpl()); }

std::string group_prefix(size_t group) { return "group" + std::to_string(group) + "."; }
std::string param_prefix(size_t group, size_t param) {
  return group_prefix(group) + "param" + std::to_string(param) + ".";
}

torch::Tensor number(double value) { return torch::tensor(value, torch::kDouble); }

[[noreturn]] void does_not_fit(const std::string& origin, const std::string& why) {
  throw DataError("Checkpoint " + origin + " holds optimizer state that does not fit this model (" + why + ").");
}

// Checkpoints of format version 1: LibTorch's archive.
void load_libtorch_archive(torch::optim::Adam& optimizer, const std::string& bytes, const std::string& origin) {
  try {
    std::istringstream in(bytes);
    torch::serialize::InputArchive archive;
    archive.load_from(in);
    optimizer.load(archive);
  } catch (const c10::Error&) {
    throw DataError("Checkpoint " + origin + " holds optimizer state that does not fit this model.");
  }
}

// Reads the state_dict written by optimizer_bytes, checking every name, count
// and shape against the optimizer's parameters before anything changes.
class SavedAdam {
 public:
  SavedAdam(StateDict dict, std::string origin) : dict_(std::move(dict)), origin_(std::move(origin)) {}

  double value(const std::string& name) const {
    const torch::Tensor& t = tensor(name);
    if (t.numel() != 1) does_not_fit(origin_, "'" + name + "' is not one number");
    return t.item<double>();
  }

  bool has(const std::string& name) const { return dict_.count(name) > 0; }

  // A moment of `param`, as the parameter's dtype on its device (the tensor
  // read from the bytes itself where it already is: nothing else holds it).
  torch::Tensor moment(const std::string& name, const torch::Tensor& param) const {
    const torch::Tensor& t = tensor(name);
    if (!t.sizes().equals(param.sizes())) does_not_fit(origin_, "'" + name + "' has another shape than its parameter");
    return t.to(param.device(), param.scalar_type());
  }

 private:
  const torch::Tensor& tensor(const std::string& name) const {
    const auto found = dict_.find(name);
    if (found == dict_.end()) does_not_fit(origin_, "no '" + name + "'");
    return found->second;
  }

  StateDict dict_;
  std::string origin_;
};

}  // namespace

std::string optimizer_bytes(const torch::optim::Adam& optimizer) {
  StateDict dict;
  const auto& groups = optimizer.param_groups();
  dict["groups"] = number(static_cast<double>(groups.size()));
  for (size_t g = 0; g < groups.size(); ++g) {
    const auto& o = static_cast<const AdamOptions&>(groups[g].options());
    const std::string group = group_prefix(g);
    dict[group + "lr"] = number(o.lr());
    dict[group + "beta1"] = number(std::get<0>(o.betas()));
    dict[group + "beta2"] = number(std::get<1>(o.betas()));
    dict[group + "eps"] = number(o.eps());
    dict[group + "weight_decay"] = number(o.weight_decay());
    dict[group + "amsgrad"] = number(o.amsgrad() ? 1 : 0);
    const auto& params = groups[g].params();
    dict[group + "params"] = number(static_cast<double>(params.size()));
    for (size_t i = 0; i < params.size(); ++i) {
      const auto found = optimizer.state().find(state_key(params[i]));
      if (found == optimizer.state().end()) continue;  // no step taken with it yet
      const auto& s = static_cast<const AdamParamState&>(*found->second);
      const std::string param = param_prefix(g, i);
      dict[param + "step"] = number(static_cast<double>(s.step()));
      dict[param + "exp_avg"] = s.exp_avg().detach().cpu();
      dict[param + "exp_avg_sq"] = s.exp_avg_sq().detach().cpu();
      if (s.max_exp_avg_sq().defined()) dict[param + "max_exp_avg_sq"] = s.max_exp_avg_sq().detach().cpu();
    }
  }
  return state_dict_to_bytes(dict, std::string_view(kMagic, kMagicSize));
}

void load_optimizer_bytes(torch::optim::Adam& optimizer, const std::string& bytes, const std::string& origin) {
  if (bytes.compare(0, kMagicSize, std::string(kMagic, kMagicSize)) != 0) {
    load_libtorch_archive(optimizer, bytes, origin);
    return;
  }
  const SavedAdam saved(state_dict_from_bytes(bytes.substr(kMagicSize), origin), origin);
  auto& groups = optimizer.param_groups();
  if (saved.value("groups") != static_cast<double>(groups.size())) does_not_fit(origin, "another number of groups");
  std::vector<AdamOptions> options;
  std::vector<std::pair<std::string, std::unique_ptr<AdamParamState>>> states;
  std::vector<std::string> stateless;
  for (size_t g = 0; g < groups.size(); ++g) {
    const std::string group = group_prefix(g);
    const auto& params = groups[g].params();
    if (saved.value(group + "params") != static_cast<double>(params.size())) {
      does_not_fit(origin, "another number of parameters in group " + std::to_string(g));
    }
    options.push_back(AdamOptions(saved.value(group + "lr"))
                          .betas({saved.value(group + "beta1"), saved.value(group + "beta2")})
                          .eps(saved.value(group + "eps"))
                          .weight_decay(saved.value(group + "weight_decay"))
                          .amsgrad(saved.value(group + "amsgrad") != 0));
    for (size_t i = 0; i < params.size(); ++i) {
      const std::string param = param_prefix(g, i);
      if (!saved.has(param + "step")) {
        stateless.push_back(state_key(params[i]));
        continue;
      }
      auto s = std::make_unique<AdamParamState>();
      s->step(static_cast<int64_t>(saved.value(param + "step")));
      s->exp_avg(saved.moment(param + "exp_avg", params[i]));
      s->exp_avg_sq(saved.moment(param + "exp_avg_sq", params[i]));
      if (saved.has(param + "max_exp_avg_sq")) s->max_exp_avg_sq(saved.moment(param + "max_exp_avg_sq", params[i]));
      states.emplace_back(state_key(params[i]), std::move(s));
    }
  }
  // Everything read and checked: now the optimizer changes.
  for (size_t g = 0; g < groups.size(); ++g) static_cast<AdamOptions&>(groups[g].options()) = options[g];
  for (const auto& key : stateless) optimizer.state().erase(key);
  for (auto& [key, state] : states) optimizer.state()[key] = std::move(state);
}

}  // namespace nmt::storage
