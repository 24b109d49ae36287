#include "serve/opennmt_api.h"

#include <algorithm>
#include <map>
#include <vector>

#include "serve/http_error.h"
#include "util/error.h"

namespace nmt::serve {
namespace {

enum class Kind { kInteger, kNumber };
// A decoding option a request may set: its field, JSON type, and where it goes.
struct OptionField {
  const char* name;
  Kind kind;
  void (*set)(decode::SearchOptions&, const nlohmann::json&);
};

const std::vector<OptionField>& option_fields() {
  using S = decode::SearchOptions;
  using J = nlohmann::json;
  static const std::vector<OptionField> fields = {
      {"beam_size", Kind::kInteger, [](S& s, const J& v) { s.beam = v.get<int64_t>(); }},
      {"n_best", Kind::kInteger, [](S& s, const J& v) { s.nbest = v.get<int64_t>(); }},
      {"length_penalty", Kind::kNumber, [](S& s, const J& v) { s.length_penalty = v.get<double>(); }},
      {"patience", Kind::kNumber, [](S& s, const J& v) { s.patience = v.get<double>(); }},
      {"min_length", Kind::kInteger, [](S& s, const J& v) { s.min_length = v.get<int64_t>(); }},
      {"no_repeat_ngram_size", Kind::kInteger, [](S& s, const J& v) { s.no_repeat_ngram_size = v.get<int64_t>(); }},
      {"repetition_penalty", Kind::kNumber, [](S& s, const J& v) { s.repetition_penalty = v.get<double>(); }},
      {"sampling_topk", Kind::kInteger, [](S& s, const J& v) { s.sampling_topk = v.get<int64_t>(); }},
      {"sampling_topp", Kind::kNumber, [](S& s, const J& v) { s.sampling_topp = v.get<double>(); }},
      {"sampling_temperature", Kind::kNumber, [](S& s, const J& v) { s.sampling_temperature = v.get<double>(); }},
      {"seed", Kind::kInteger, [](S& s, const J& v) {
         if (v.get<int64_t>() < 0) throw HttpError(400, "\"seed\" must not be negative.");
         s.seed = v.get<uint64_t>();
       }}};
  return fields;
}

// Collects the decoding options of one element into `options`, each given
// once per request or with the same value.
void read_options(const nlohmann::json& item, const std::string& where, std::map<std::string, nlohmann::json>& options) {
  for (const auto& field : option_fields()) {
    const std::string name = field.name;
    const Kind kind = field.kind;
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
  for (const auto& field : option_fields()) {
    const auto it = o.find(field.name);
    if (it != o.end()) field.set(s, it->second);
  }
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
      // "complete": ours, beside OpenNMT-py's fields: false when the coverage
      // check found source words the translation may have lost, or a piece
      // stopped at its length limit (decode/checked_translation.h).
      const bool complete = t.coverage.uncovered_pieces == 0 && t.coverage.length_limited == 0;
      rank.push_back({{"src", texts[i]},
                      {"tgt", t.hypotheses[pick]},
                      {"n_best", nbest},
                      {"pred_score", t.scores[pick]},
                      {"complete", complete}});
    }
    out.push_back(std::move(rank));
  }
  return out;
}

}  // namespace nmt::serve
