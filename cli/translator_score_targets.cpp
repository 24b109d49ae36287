#include "cli/translator_score_targets.h"

#include <fmt/format.h>

#include <fstream>

#include "util/error.h"

namespace nmt::cli {
namespace {

std::vector<std::string> lines_of_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DataError("Cannot read the targets to score, " + path + ".");
  return lines_of(in);
}

std::vector<int64_t> ids_of(const vocab::Vocab& v, const std::string& text) {
  const auto ids = v.encode(text);
  return {ids.begin(), ids.end()};
}

}  // namespace

std::vector<std::string> lines_of(std::istream& in) {
  std::vector<std::string> lines;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(line);
  }
  return lines;
}

int score_target_file(decode::Translator& translator, const std::vector<std::string>& sources,
                      const std::string& targets_path, TranslationOutput& out) {
  const auto targets = lines_of_file(targets_path);
  if (targets.size() != sources.size()) {
    throw DataError("--score-targets " + targets_path + " has " + std::to_string(targets.size()) + " lines for " +
                    std::to_string(sources.size()) + " input lines; it needs one translation a line.");
  }
  const auto& vocabs = translator.vocabs();
  std::vector<std::vector<int64_t>> src, tgt;
  for (size_t i = 0; i < sources.size(); ++i) {
    src.push_back(ids_of(*vocabs.src, sources[i]));
    tgt.push_back(ids_of(*vocabs.tgt, targets[i]));
  }
  const auto scores = translator.score_targets(src, tgt);
  for (const auto& values : scores) {
    double total = 0;
    std::string line;
    for (float v : values) {
      total += v;
      line += fmt::format(" {:.6f}", v);
    }
    out.stream() << fmt::format("{:.6f} |||", total) << line << "\n";
  }
  out.commit();
  return 0;
}

}  // namespace nmt::cli
