#include "storage/length_profile.h"

#include <algorithm>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "util/atomic_file.h"
#include "util/error.h"

namespace nmt::storage {
namespace {

constexpr int64_t kRatioSteps = 100;  // ratio histogram bins per unit
constexpr int64_t kMaxRatio = 20;     // ratios above count as this

void bump(std::vector<int64_t>& hist, int64_t at) {
  if (at < 0) at = 0;
  if (static_cast<size_t>(at) >= hist.size()) hist.resize(static_cast<size_t>(at) + 1, 0);
  ++hist[static_cast<size_t>(at)];
}

// The smallest value v with at least q of the counts at or below it.
double quantile(const std::vector<int64_t>& hist, int64_t total, double q) {
  if (total == 0) return 0;
  const auto needed = static_cast<int64_t>(q * static_cast<double>(total) + 0.5);
  int64_t seen = 0;
  for (size_t v = 0; v < hist.size(); ++v) {
    seen += hist[v];
    if (seen >= std::max<int64_t>(needed, 1)) return static_cast<double>(v);
  }
  return static_cast<double>(hist.size() - 1);
}

LengthSpread spread(const std::vector<int64_t>& hist, int64_t total) {
  return {quantile(hist, total, 0.5), quantile(hist, total, 0.95), quantile(hist, total, 0.99),
          hist.empty() ? 0.0 : static_cast<double>(hist.size() - 1)};
}

nlohmann::json to_json(const LengthSpread& s) {
  return {{"median", s.median}, {"p95", s.p95}, {"p99", s.p99}, {"max", s.max}};
}

LengthSpread length_spread_of(const nlohmann::json& j) {
  return {j.at("median").get<double>(), j.at("p95").get<double>(), j.at("p99").get<double>(),
          j.at("max").get<double>()};
}

}  // namespace

int64_t LengthProfile::max_piece_tokens() const { return std::max<int64_t>(8, static_cast<int64_t>(source.p99)); }

void LengthProfileBuilder::add(int64_t source_tokens, int64_t target_tokens) {
  ++pairs_;
  bump(source_hist_, source_tokens);
  bump(target_hist_, target_tokens);
  const double ratio = static_cast<double>(target_tokens) / static_cast<double>(std::max<int64_t>(1, source_tokens));
  bump(ratio_hist_, static_cast<int64_t>(std::min<double>(ratio, kMaxRatio) * kRatioSteps + 0.5));
}

void LengthProfileBuilder::SideCounts::add(const std::vector<int32_t>& ids) {
  if (ids.empty()) return;
  ++sentences;
  const auto max_id = static_cast<size_t>(*std::max_element(ids.begin(), ids.end()));
  if (max_id >= any.size()) {
    any.resize(max_id + 1, 0);
    first.resize(max_id + 1, 0);
    last.resize(max_id + 1, 0);
  }
  ++first[static_cast<size_t>(ids.front())];
  ++last[static_cast<size_t>(ids.back())];
  for (int32_t id : ids) ++any[static_cast<size_t>(id)];
}

std::vector<std::string> LengthProfileBuilder::SideCounts::openers(
    const std::function<std::string(int32_t)>& piece) const {
  static const std::string kWordMark = "\xE2\x96\x81";  // "▁" alone starts any word
  std::vector<std::string> out;
  const int64_t least = std::max<int64_t>(20, sentences / 1000);
  for (size_t id = 0; id < first.size(); ++id) {
    if (first[id] < least || 2 * first[id] < any[id]) continue;
    std::string p = piece(static_cast<int32_t>(id));
    if (p != kWordMark) out.push_back(std::move(p));
  }
  return out;
}

std::string LengthProfileBuilder::SideCounts::final_mark(const std::function<std::string(int32_t)>& piece) const {
  static const std::string kWordMark = "\xE2\x96\x81";
  for (size_t id = 0; id < last.size(); ++id) {
    if (2 * last[id] < sentences || sentences == 0) continue;
    std::string p = piece(static_cast<int32_t>(id));
    if (p.rfind(kWordMark, 0) == 0) p = p.substr(kWordMark.size());
    if (p == "." || p == "!" || p == "?") return p;
  }
  return "";
}

void LengthProfileBuilder::add_ids(const std::vector<int32_t>& source, const std::vector<int32_t>& target) {
  source_ids_.add(source);
  target_ids_.add(target);
}

LengthProfile LengthProfileBuilder::finish(const std::function<std::string(int32_t)>& source_piece,
                                           const std::function<std::string(int32_t)>& target_piece) const {
  LengthProfile p;
  p.pairs = pairs_;
  p.source = spread(source_hist_, pairs_);
  p.target = spread(target_hist_, pairs_);
  const auto r = [&](double q) { return quantile(ratio_hist_, pairs_, q) / kRatioSteps; };
  p.ratio = {r(0.01), r(0.05), r(0.5), r(0.95), r(0.99)};
  p.source_openers = source_ids_.openers(source_piece);
  p.target_openers = target_ids_.openers(target_piece);
  p.source_final_mark = source_ids_.final_mark(source_piece);
  p.target_final_mark = target_ids_.final_mark(target_piece);
  return p;
}

void write_length_profile(const std::string& path, const LengthProfile& p) {
  nlohmann::json j = {{"format_version", LengthProfile::kFormatVersion},
                      {"pairs", p.pairs},
                      {"source_tokens", to_json(p.source)},
                      {"target_tokens", to_json(p.target)},
                      {"ratio",
                       {{"p1", p.ratio.p1},
                        {"p5", p.ratio.p5},
                        {"median", p.ratio.median},
                        {"p95", p.ratio.p95},
                        {"p99", p.ratio.p99}}},
                      {"max_piece_tokens", p.max_piece_tokens()},
                      {"sentence_openers", {{"source", p.source_openers}, {"target", p.target_openers}}},
                      {"final_marks", {{"source", p.source_final_mark}, {"target", p.target_final_mark}}},
                      {"coverage", {{"threshold", p.coverage_threshold}, {"sentences", p.coverage_sentences}}}};
  write_file_atomically(path, j.dump(2) + "\n");
}

std::optional<LengthProfile> read_length_profile(const std::string& path) {
  if (!std::filesystem::exists(path)) return std::nullopt;
  LengthProfile p;
  try {
    const auto j = nlohmann::json::parse(read_file_bytes(path));
    const auto version = j.at("format_version").get<int64_t>();
    if (version != LengthProfile::kFormatVersion) {
      throw DataError(path + " has format version " + std::to_string(version) + "; this translator reads version " +
                      std::to_string(LengthProfile::kFormatVersion) + ".");
    }
    p.pairs = j.at("pairs").get<int64_t>();
    p.source = length_spread_of(j.at("source_tokens"));
    p.target = length_spread_of(j.at("target_tokens"));
    const auto& r = j.at("ratio");
    p.ratio = {r.at("p1").get<double>(), r.at("p5").get<double>(), r.at("median").get<double>(),
               r.at("p95").get<double>(), r.at("p99").get<double>()};
    const auto& openers = j.at("sentence_openers");
    p.source_openers = openers.at("source").get<std::vector<std::string>>();
    p.target_openers = openers.at("target").get<std::vector<std::string>>();
    p.source_final_mark = j.at("final_marks").at("source").get<std::string>();
    p.target_final_mark = j.at("final_marks").at("target").get<std::string>();
    if (j.contains("coverage")) {
      p.coverage_threshold = j.at("coverage").at("threshold").get<double>();
      p.coverage_sentences = j.at("coverage").at("sentences").get<int64_t>();
    }
  } catch (const DataError&) {
    throw;
  } catch (const std::exception& e) {
    throw DataError("Cannot read the length profile " + path + ": " + e.what());
  }
  if (p.pairs < 1 || p.source.p99 < 1 || p.ratio.p1 < 0 || p.ratio.p99 < p.ratio.p1 || p.coverage_threshold < 0 ||
      p.coverage_threshold > 1) {
    throw DataError("The length profile " + path + " holds values out of range (pairs " + std::to_string(p.pairs) +
                    ", source p99 " + std::to_string(p.source.p99) + ", coverage threshold " +
                    std::to_string(p.coverage_threshold) + ").");
  }
  return p;
}

}  // namespace nmt::storage
