// OpenNMT-py's REST shape: POST /translator/translate with
// [{"src": "...", "id": N}, ...], answered with one list per n-best rank, each
// holding {"src", "tgt", "n_best", "pred_score"} per input in order. The id
// picks the model as OpenNMT-py's conf.json ids do: here 100 for the first
// model (the id of OpenNMT-py's example conf.json, which clients copy), 101
// for the second, and so on, as GET /translator/models lists them; without
// one, the first model.
#pragma once

#include <map>
#include <optional>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "serve/text_translation.h"

namespace nmt::serve {

constexpr int64_t kFirstModelId = 100;

struct OpenNmtRequest {
  std::vector<std::string> texts;
  int64_t id = kFirstModelId;
  std::map<std::string, nlohmann::json> options;  // decoding options as given (see requested_search)
  std::vector<std::string> target_prefixes;       // empty, or one per text ("" for none)
};

// The "src" texts and their model's id; HttpError 400 when the body is not an
// array of objects with a string "src" and, if present, an integer "id" (one
// id for the whole request). Decoding options, in any object and applying to
// the whole request (an option given twice must agree): "beam_size" and
// "n_best" (OpenNMT-py's names), and the command line's in snake case,
// "length_penalty", "patience", "min_length", "no_repeat_ngram_size",
// "repetition_penalty", "sampling_topk", "sampling_topp",
// "sampling_temperature", "seed"; per object, "target_prefix" (a string the
// translation starts with). A wrong type is a 400 naming the field.
OpenNmtRequest parse_opennmt(const nlohmann::json& body);

// The model's options (`defaults`) with the request's applied; none when the
// request sets none. HttpError 400 naming the field for a value out of range.
std::optional<decode::SearchOptions> requested_search(const OpenNmtRequest& request,
                                                     const decode::SearchOptions& defaults);

// `nbest` lists of len(texts) entries; a rank a sentence lacks repeats its last.
nlohmann::json opennmt_response(const std::vector<std::string>& texts, const std::vector<TextTranslation>& translations,
                                int64_t nbest);

}  // namespace nmt::serve
