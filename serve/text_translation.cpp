#include "serve/text_translation.h"

#include <algorithm>

#include "decode/html_translation.h"
#include "serve/http_error.h"
#include "text/utf8.h"

namespace nmt::serve {

decode::TranslatorOptions serving_options(decode::TranslatorOptions options, const std::string& source_language) {
  options.split_sentences = true;
  options.source_language = source_language;
  return options;
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  for (;;) {
    const size_t end = text.find('\n', start);
    std::string line = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(std::move(line));
    if (end == std::string::npos) return lines;
    start = end + 1;
  }
}

void RequestLimits::check(const std::vector<std::string>& texts, bool count_lines) const {
  int64_t chars = 0, lines = 0;
  for (size_t i = 0; i < texts.size(); ++i) {
    if (text::find_invalid_utf8(texts[i]) != texts[i].size()) {
      throw HttpError(400, "Text " + std::to_string(i) + " of the request is not valid UTF-8.");
    }
    chars += static_cast<int64_t>(text::count_code_points(texts[i]));
    lines += 1 + static_cast<int64_t>(std::count(texts[i].begin(), texts[i].end(), '\n'));
  }
  if (chars > max_chars) {
    throw HttpError(400, "The request holds " + std::to_string(chars) + " characters; this server takes at most " +
                             std::to_string(max_chars) + " per request.");
  }
  if (count_lines && lines > max_sentences) {
    throw HttpError(400, "The request holds " + std::to_string(lines) +
                             " sentences (lines); this server takes at most " + std::to_string(max_sentences) +
                             " per request.");
  }
}

std::vector<TextTranslation> translate_texts(Batcher& batcher, const std::vector<std::string>& texts) {
  std::vector<std::string> lines;
  std::vector<size_t> first_line;  // per text, into `lines`
  for (const auto& text : texts) {
    first_line.push_back(lines.size());
    for (auto& line : split_lines(text)) lines.push_back(std::move(line));
  }
  first_line.push_back(lines.size());
  const auto translated = batcher.translate(lines);
  std::vector<TextTranslation> out(texts.size());
  for (size_t t = 0; t < texts.size(); ++t) {
    size_t n_hyps = 1;
    for (size_t l = first_line[t]; l < first_line[t + 1]; ++l) n_hyps = std::max(n_hyps, translated[l].texts.size());
    for (size_t k = 0; k < n_hyps; ++k) {
      std::string joined;
      double score = 0;
      for (size_t l = first_line[t]; l < first_line[t + 1]; ++l) {
        const auto& line = translated[l];
        if (l > first_line[t]) joined += '\n';
        if (line.texts.empty()) continue;  // blank line
        const size_t pick = std::min(k, line.texts.size() - 1);
        joined += line.texts[pick];
        score += line.scores[pick];
      }
      out[t].hypotheses.push_back(std::move(joined));
      out[t].scores.push_back(score);
    }
  }
  return out;
}

std::vector<TextTranslation> translate_html_texts(Batcher& batcher, const std::vector<std::string>& texts) {
  decode::HtmlTranslator html(
      batcher.translator(), [&batcher](const std::vector<decode::LinePlan>& plans) { return batcher.translate_plans(plans); },
      [&batcher](const std::function<void()>& call) { batcher.run_on_worker(call); });
  std::vector<TextTranslation> out;
  for (auto& t : html.translate(texts)) out.push_back({{std::move(t.html)}, {0.0}});
  return out;
}

}  // namespace nmt::serve
