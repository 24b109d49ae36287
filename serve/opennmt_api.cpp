#include "serve/opennmt_api.h"

#include <algorithm>

#include "serve/http_error.h"

namespace nmt::serve {

OpenNmtRequest parse_opennmt(const nlohmann::json& body) {
  if (!body.is_array()) throw HttpError(400, "The body must be a JSON array of {\"src\": TEXT, \"id\": MODEL_ID}.");
  OpenNmtRequest request;
  bool has_id = false;
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
  }
  return request;
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
