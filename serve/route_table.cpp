#include "serve/route_table.h"

#include <algorithm>
#include <set>

namespace nmt::serve {

RouteTable::RouteTable(std::vector<data::LanguagePair> pairs) : pairs_(std::move(pairs)) {}

std::optional<size_t> RouteTable::direct(const std::string& source, const std::string& target) const {
  for (size_t i = 0; i < pairs_.size(); ++i) {
    if (pairs_[i].source == source && pairs_[i].target == target) return i;
  }
  return std::nullopt;
}

std::vector<std::string> RouteTable::languages() const {
  std::set<std::string> all;
  for (const auto& p : pairs_) {
    all.insert(p.source);
    all.insert(p.target);
  }
  return {all.begin(), all.end()};
}

std::optional<Route> RouteTable::find(const std::string& source, const std::string& target) const {
  if (source == target) return std::nullopt;
  if (const auto model = direct(source, target)) return Route{{*model}, ""};
  std::vector<std::string> pivots = languages();
  // English first: the language most models are trained to and from.
  std::stable_partition(pivots.begin(), pivots.end(), [](const std::string& l) { return l == "en"; });
  for (const auto& pivot : pivots) {
    if (pivot == source || pivot == target) continue;
    const auto first = direct(source, pivot), second = direct(pivot, target);
    if (first && second) return Route{{*first, *second}, pivot};
  }
  return std::nullopt;
}

std::vector<std::string> RouteTable::sources() const {
  std::set<std::string> out;
  for (const auto& p : pairs_) out.insert(p.source);
  return {out.begin(), out.end()};
}

std::vector<std::string> RouteTable::targets(const std::string& source) const {
  std::vector<std::string> out;
  for (const auto& target : languages()) {
    if (find(source, target)) out.push_back(target);
  }
  return out;
}

std::string RouteTable::describe() const {
  std::string out;
  for (const auto& source : sources()) {
    for (const auto& target : targets(source)) {
      const auto route = find(source, target);
      out += (out.empty() ? "" : ", ") + source + "->" + target;
      if (!route->pivot.empty()) out += " (through " + route->pivot + ")";
    }
  }
  return out;
}

}  // namespace nmt::serve
