#include "document/subtitle_document.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <regex>
#include <sstream>

#include "document/translated_fragment.h"
#include "text/span.h"
#include "text/utf8.h"
#include "util/error.h"

namespace nmt::document {
namespace {

constexpr size_t kMaxCuesAtOnce = 8;

struct Cue {
  std::string number, timing;
  std::vector<std::string> lines;
};

std::string trim(const std::string& s) { return std::string(text::trim_space(s, {0, s.size()}).of(s)); }

bool ends_sentence(const Cue& cue) {
  if (cue.lines.empty()) return true;
  std::string last = trim(cue.lines.back());
  // Closing tags and quotes after the mark: "Go.</i>", "Go."
  static const std::regex tail(R"((</[a-zA-Z]+>|["'\)\]]|\xE2\x80\x9D|\xC2\xBB)+$)");
  last = std::regex_replace(last, tail, "");
  if (last.empty()) return false;
  static const std::vector<std::string> marks = {".", "!", "?", "\xE2\x80\xA6", "\xE2\x99\xAA", ":", "\xE3\x80\x82"};
  for (const auto& m : marks) {
    if (last.size() >= m.size() && last.compare(last.size() - m.size(), m.size(), m) == 0) {
      // "..." leads on: a sentence goes on in the next cue.
      return !(m == "." && last.size() >= 3 && last.compare(last.size() - 3, 3, "...") == 0) &&
             m != "\xE2\x80\xA6";
    }
  }
  return false;
}

class SubtitleDocument : public Document {
 public:
  SubtitleDocument(std::string bytes, const std::string& name) {
    if (bytes.compare(0, 3, "\xEF\xBB\xBF") == 0) bytes.erase(0, 3);
    if (text::find_invalid_utf8(bytes) != bytes.size()) throw DataError(name + " is not valid UTF-8 text.");
    crlf_ = bytes.find("\r\n") != std::string::npos;
    parse(bytes, name);
    for (size_t first = 0; first < cues_.size();) {
      size_t end = first;
      while (end < cues_.size() && end - first < kMaxCuesAtOnce) {
        if (ends_sentence(cues_[end++])) break;
      }
      groups_.emplace_back(first, end);
      texts_.push_back(group_html(first, end));
      first = end;
    }
  }

  const std::vector<std::string>& texts() const override { return texts_; }

  std::string render(const std::vector<std::string>& translations, const std::string&) override {
    if (translations.size() != texts_.size()) throw std::logic_error("SubtitleDocument::render: one translation per text.");
    for (size_t g = 0; g < groups_.size(); ++g) spread(groups_[g].first, groups_[g].second, translations[g]);
    const std::string nl = crlf_ ? "\r\n" : "\n";
    std::string out;
    for (size_t c = 0; c < cues_.size(); ++c) {
      if (c > 0) out += nl;
      out += cues_[c].number + nl + cues_[c].timing + nl;
      for (const auto& line : cues_[c].lines) out += line + nl;
    }
    return out;
  }

 private:
  void parse(const std::string& bytes, const std::string& name) {
    static const std::regex timing(R"(\s*\d+:\d{1,2}:\d{1,2}[,.]\d{1,3}\s*-->\s*\d+:\d{1,2}:\d{1,2}[,.]\d{1,3}.*)");
    std::vector<std::string> lines;
    for (size_t at = 0; at <= bytes.size();) {
      size_t end = bytes.find('\n', at);
      if (end == std::string::npos) end = bytes.size();
      std::string line = bytes.substr(at, end - at);
      if (!line.empty() && line.back() == '\r') line.pop_back();
      lines.push_back(line);
      at = end + 1;
    }
    for (size_t i = 0; i < lines.size();) {
      if (trim(lines[i]).empty()) {
        ++i;
        continue;
      }
      Cue cue;
      cue.number = lines[i];
      if (trim(cue.number).find_first_not_of("0123456789") != std::string::npos || i + 1 >= lines.size() ||
          !std::regex_match(lines[i + 1], timing)) {
        throw DataError(name + " line " + std::to_string(i + 1) + ": expected a cue's number and then its timing " +
                        "(00:00:01,000 --> 00:00:02,000), found \"" + lines[i].substr(0, 60) + "\"; is it a SubRip file?");
      }
      cue.timing = lines[i + 1];
      for (i += 2; i < lines.size() && !trim(lines[i]).empty(); ++i) cue.lines.push_back(lines[i]);
      cues_.push_back(std::move(cue));
    }
  }

  std::string group_html(size_t first, size_t end) const {
    std::string html;
    for (size_t c = first; c < end; ++c) {
      if (c > first) html += ' ';
      html += "<span data-c=\"" + std::to_string(c) + "\">";
      for (size_t l = 0; l < cues_[c].lines.size(); ++l) {
        if (l > 0) html += ' ';
        html += "<span data-l=\"" + std::to_string(l) + "\">" + trim(cues_[c].lines[l]) + "</span>";
      }
      html += "</span>";
    }
    return html;
  }

  // The group's cues and lines, from where the translation's words landed.
  void spread(size_t first, size_t end, const std::string& translation) {
    std::vector<std::vector<std::string>> lines(end - first);
    for (size_t c = first; c < end; ++c) lines[c - first].resize(std::max<size_t>(1, cues_[c].lines.size()));
    size_t cue = 0, line = 0;
    for (const FragmentPiece& p : read_fragment(translation)) {
      if (const std::string* c = p.mark("data-c")) {
        const size_t at = static_cast<size_t>(std::atoll(c->c_str()));
        if (at >= first && at < end) cue = at - first, line = 0;
        if (const std::string* l = p.mark("data-l")) line = std::min<size_t>(std::atoll(l->c_str()), lines[cue].size() - 1);
      }
      if (!p.empty_element) lines[cue][line] += p.text;
    }
    bool empty_cue = false;
    for (const auto& cue_lines : lines) {
      std::string all;
      for (const auto& l : cue_lines) all += trim(l);
      empty_cue = empty_cue || all.empty();
    }
    if (empty_cue && end - first > 1) return spread_by_length(first, end, lines);
    for (size_t c = first; c < end; ++c) {
      const auto& cue_lines = lines[c - first];
      const bool empty_line = std::any_of(cue_lines.begin(), cue_lines.end(),
                                          [](const std::string& l) { return trim(l).empty(); });
      if (empty_line && cue_lines.size() > 1) {  // a line left empty: the cue's words over its lines by length
        spread_by_length(c, c + 1, {cue_lines});
        continue;
      }
      cues_[c].lines.clear();
      for (const auto& l : cue_lines) {
        const std::string t = trim(l);
        if (!t.empty()) cues_[c].lines.push_back(t);
      }
    }
  }

  // Where the alignment left a cue without words (a verb-final target pulls
  // a sentence's end into the cue of its verb, and the cue's stretch with
  // it), the words are spread over the cues in their order by the length of
  // each cue's source text, a cut moved to a punctuation mark within two
  // words; a cue's lines by the same rule.
  void spread_by_length(size_t first, size_t end, const std::vector<std::vector<std::string>>& lines) {
    std::vector<std::string> words;
    for (const auto& cue_lines : lines) {
      for (const auto& l : cue_lines) {
        std::istringstream in(l);
        for (std::string w; in >> w;) words.push_back(w);
      }
    }
    std::vector<size_t> weights;
    for (size_t c = first; c < end; ++c) {
      size_t chars = 1;
      for (const auto& l : cues_[c].lines) chars += l.size();
      weights.push_back(chars);
    }
    const auto bounds = cuts(words.size(), weights, words);
    for (size_t c = first; c < end; ++c) {
      const std::vector<std::string> mine(words.begin() + static_cast<std::ptrdiff_t>(bounds[c - first]),
                                          words.begin() + static_cast<std::ptrdiff_t>(bounds[c - first + 1]));
      std::vector<size_t> line_weights;
      for (const auto& l : cues_[c].lines) line_weights.push_back(l.size() + 1);
      if (line_weights.empty() || mine.size() < 2 * line_weights.size()) line_weights = {1};
      const auto line_bounds = cuts(mine.size(), line_weights, mine);
      cues_[c].lines.clear();
      for (size_t l = 0; l + 1 < line_bounds.size(); ++l) {
        std::string text;
        for (size_t w = line_bounds[l]; w < line_bounds[l + 1]; ++w) text += (text.empty() ? "" : " ") + mine[w];
        if (!text.empty()) cues_[c].lines.push_back(text);
      }
    }
  }

  // Boundaries [0, ..., n] cutting n words into weights.size() parts of at
  // least one word each (where there are enough), in proportion to the weights.
  static std::vector<size_t> cuts(size_t n, const std::vector<size_t>& weights, const std::vector<std::string>& words) {
    const size_t parts = weights.size();
    double total = 0;
    for (size_t w : weights) total += static_cast<double>(w);
    std::vector<size_t> out{0};
    double sum = 0;
    for (size_t k = 0; k + 1 < parts; ++k) {
      sum += static_cast<double>(weights[k]);
      size_t cut = static_cast<size_t>(std::lround(sum / total * static_cast<double>(n)));
      for (size_t d = 0; d <= 2; ++d) {  // a clause's end close by
        const auto ends_clause = [&](size_t at) {
          return at > 0 && at < n && std::strchr(",.;:!?", words[at - 1].back()) != nullptr;
        };
        if (ends_clause(cut + d)) { cut += d; break; }
        if (d <= cut && ends_clause(cut - d)) { cut -= d; break; }
      }
      const size_t low = out.back() + (n >= parts ? 1 : 0), high = n >= parts ? n - (parts - 1 - k) : n;
      out.push_back(std::clamp(cut, std::min(low, high), high));
    }
    out.push_back(n);
    return out;
  }

  std::vector<Cue> cues_;
  std::vector<std::pair<size_t, size_t>> groups_;
  std::vector<std::string> texts_;
  bool crlf_ = false;
};

}  // namespace

std::unique_ptr<Document> open_subtitles(std::string bytes, const std::string& name, const DocumentLimits&) {
  return std::make_unique<SubtitleDocument>(std::move(bytes), name);
}

}  // namespace nmt::document
