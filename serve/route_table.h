// Which models translate a language pair: the model of that pair, or two
// models one after the other through a language both share (a pivot:
// English first, then the other shared languages in alphabetical order).
// The server builds one table from the pairs of the models it serves.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "data/language_pair.h"

namespace nmt::serve {

struct Route {
  std::vector<size_t> models;  // indices into the table's pairs, in the order they translate; 1 or 2
  std::string pivot;           // the language between two models; "" for a direct route
};

class RouteTable {
 public:
  // `pairs`: one per model; the first model of a pair serves it.
  explicit RouteTable(std::vector<data::LanguagePair> pairs);

  // The route from `source` to `target`, or nothing when none exists.
  std::optional<Route> find(const std::string& source, const std::string& target) const;
  // Every language some model translates from, sorted.
  std::vector<std::string> sources() const;
  // Every language reachable from `source` (directly or through a pivot), sorted.
  std::vector<std::string> targets(const std::string& source) const;
  // Every source and target, sorted.
  std::vector<std::string> languages() const;
  // "de->en, en->de, de->fr (through en)": what can be asked, for messages.
  std::string describe() const;

 private:
  std::optional<size_t> direct(const std::string& source, const std::string& target) const;

  std::vector<data::LanguagePair> pairs_;
};

}  // namespace nmt::serve
