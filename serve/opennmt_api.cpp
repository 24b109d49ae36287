#include "serve/opennmt_api.h"

#include <algorithm>
#include <map>

#include "serve/http_error.h"
#include "util/error.h"

namespace nmt::serve {
namespace {

enum class Kind { kInteger, kNumber };
// The decoding options a request may set, and their JSON types.
const std::map<std::string, Kind>& option_kinds() {
  static const std::map<std::string, Kind> kinds = {
      {"beam_size", Kind::kInteger},          {"n_best", Kind::kInteger},
      {"length_penalty", Kind::kNumber},      {"patience", Kind::kNumber},
      {"min_length", Kind::kInteger},         {"no_repeat_ngram_size", Kind::kInteger},
      {"repetition_penalty", Kind::kNumber},  {"sampling_topk", Kind::kInteger},
      {"sampling_topp", Kind::kNumber},       {"sampling_temperature", Kind::kNumber},
      {"seed", Kind::kInteger}};
  return kinds;
}

// Collects the decoding options of one element into `options`, each given
// once per request or with the same value.
void read_options(const nlohmann::json& item, const std::string& where, std::map<std::string, nlohmann::json>& options) {
  for (const auto& [name, kind] : option_kinds()) {
    const auto it = item.find(name);
    if (it == item.end()) continue;
    if (kind == Kind::kInteger ? !it->is_number_integer() : !it->is_number()) {
      throw HttpError(400, where + ": \"" + name + "\" must be " + (kind == Kind::kInteger ? "an integer." : "a number."));
    }
    const auto [seen, first] = options.emplace(name, *it);
    if (!first && seen->second != *it) {
      throw HttpError(400, where + " sets \"" + name + "\" to " + it->dump() + ", an earlier element to " +
                               seen->second.dump() + "; decoding options hold for the whole request.");
    }
  }
}

// The request's options, checked: the command line's messages name flags, so
// the field names are given with them.
void check_options(const decode::SearchOptions& search) {
  if (search.beam > kMaxRequestBeam) {
    throw HttpError(400, "\"beam_size\" is at most " + std::to_string(kMaxRequestBeam) + " on this server (got " +
                             std::to_string(search.beam) + ").");
  }
  try {
    search.validate();
  } catch (const UsageError& e) {
    throw HttpError(400, std::string("Invalid decoding options (the fields are named as the translator's flags, in "
                                     "snake case, with beam_size and n_best for --beam and --nbest): ") +
                             e.what());
  }
}

}  // namespace

OpenNmtRequest parse_opennmt(const nlohmann::json& body) {
  if (!body.is_array()) throw HttpError(400, "The body must be a JSON array of {\"src\": TEXT, \"id\": MODEL_ID}.");
  OpenNmtRequest request;
  bool has_id = false;
  std::vector<std::string> prefixes;
  bool any_prefix = false;
  for (size_t i = 0; i < body.size(); ++i) {
    const auto& item = body[i];
    const std::string where = "Element " + std::to_string(i) + " of the request";
    if (!item.is_object()) throw HttpError(400, where + " must be an object with a string \"src\".");
    const auto src = item.find("src");
    if (src == item.end()) throw HttpError(400, where + " has no \"src\".");
    if (!src->is_string()) throw HttpError(400, where + ": \"src\" must be a string.");
    const auto id = item.find("id");
    if (id != item.end() && !id->is_number_integer()) {
      throw HttpError(400, where + ": \"id\" (the model id) must be an integer.");
    }
    if (id != item.end()) {
      if (has_id && id->get<int64_t>() != request.id) {
        throw HttpError(400, where + " names model " + std::to_string(id->get<int64_t>()) + ", an earlier one model " +
                                 std::to_string(request.id) + "; send one request per model.");
      }
      has_id = true;
      request.id = id->get<int64_t>();
    }
    request.texts.push_back(src->get<std::string>());
    read_options(item, where, request.options);
    const auto prefix = item.find("target_prefix");
    if (prefix != item.end() && !prefix->is_string()) throw HttpError(400, where + ": \"target_prefix\" must be a string.");
    prefixes.push_back(prefix == item.end() ? std::string() : prefix->get<std::string>());
    any_prefix = any_prefix || !prefixes.back().empty();
  }
  if (any_prefix) request.target_prefixes = std::move(prefixes);
  return request;
}

std::optional<decode::SearchOptions> requested_search(const OpenNmtRequest& request,
                                                     const decode::SearchOptions& defaults) {
  if (request.options.empty()) return std::nullopt;
  decode::SearchOptions s = defaults;
  const auto& o = request.options;
  const auto set = [&o](const char* name, auto& field) {
    const auto it = o.find(name);
    if (it != o.end()) field = it->second.get<std::remove_reference_t<decltype(field)>>();
  };
  set("beam_size", s.beam);
  set("n_best", s.nbest);
  set("length_penalty", s.length_penalty);
  set("patience", s.patience);
  set("min_length", s.min_length);
  set("no_repeat_ngram_size", s.no_repeat_ngram_size);
  set("repetition_penalty", s.repetition_penalty);
  set("sampling_topk", s.sampling_topk);
  set("sampling_topp", s.sampling_topp);
  set("sampling_temperature", s.sampling_temperature);
  if (o.count("seed") && o.at("seed").get<int64_t>() < 0) throw HttpError(400, "\"seed\" must not be negative.");
  set("seed", s.seed);
  // n_best alone widens the beam, as --nbest does on the command line.
  if (!o.count("beam_size") && s.nbest > s.beam) s.beam = s.nbest;
  check_options(s);
  return s;
}

nlohmann::json opennmt_response(const std::vector<std::string>& texts, const std::vector<TextTranslation>& translations,
                                int64_t nbest) {
  nlohmann::json out = nlohmann::json::array();
  for (int64_t k = 0; k < nbest; ++k) {
    nlohmann::json rank = nlohmann::json::array();
    for (size_t i = 0; i < texts.size(); ++i) {
      const auto& t = translations[i];
      const size_t pick = std::min(static_cast<size_t>(k), t.hypotheses.size() - 1);
      rank.push_back(
          {{"src", texts[i]}, {"tgt", t.hypotheses[pick]}, {"n_best", nbest}, {"pred_score", t.scores[pick]}});
    }
    out.push_back(std::move(rank));
  }
  return out;
}

}  // namespace nmt::serve
