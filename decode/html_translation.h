// HTML translated with a Translator, its markup kept (text/html_document.h):
// every run of text is split into sentences and translated in the same
// length-sorted batches as everything else. A run without inline elements is
// translated exactly as the same text given as a paragraph; in a run with
// them, each sentence holding an element is translated as one unit (sentences
// that an element spans are kept together) and the elements are carried to
// the target words their source words align to (text/markup_transfer.h) by
// the decoder's cross-attention, averaged over heads, one teacher-forced pass
// per such sentence.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <torch/types.h>

#include "decode/translation.h"
#include "text/markup_transfer.h"
#include "text/sentence_splitter.h"

namespace nmt::text {
class HtmlDocument;
}

namespace nmt::decode {

struct HtmlTranslation {
  std::string html;            // the document translated (the input itself when it is not UTF-8)
  bool invalid_utf8 = false;
  int64_t sentences = 0, long_sentences = 0;
  std::vector<UnmetTerm> unmet_terms;  // glossary terms the translation lacks
};

class HtmlTranslator {
 public:
  // `translator` must outlive this object.
  // `alignment_layer`: the decoder layer whose cross-attention aligns words
  // (negative: from the last; the second to last by default, the last for a one-layer model).
  explicit HtmlTranslator(Translator& translator, PlanTranslator plans = nullptr, ModelCall model_call = nullptr,
                          std::optional<int64_t> alignment_layer = std::nullopt);

  std::vector<HtmlTranslation> translate(const std::vector<std::string>& documents);
  // What is kept verbatim in the text (default: the translator's options; inline tags are markup here).
  void set_placeholders(text::PlaceholderOptions placeholders);
  // The glossary whose terms the translation must contain (default: the translator's own).
  void set_glossary(std::shared_ptr<const memory::Glossary> glossary) { glossary_ = std::move(glossary); }


 private:
  struct Job;
  void plan_document(size_t d, const text::HtmlDocument& doc, std::vector<LinePlan>& plans,
                     std::vector<Job>& jobs) const;
  void attend(const std::vector<LinePlan>& plans, const std::vector<std::vector<std::vector<Hypothesis>>>& hypotheses,
              std::vector<Job>& jobs) const;
  // The unit's words with its elements kept as they are (inline code,
  // translate="no") and its placeholders among them, as words of their own.
  std::vector<text::AlignedWord> with_kept_pieces(std::vector<text::AlignedWord> words, const Job& job,
                                                  const text::HtmlDocument& doc, const LinePlan& plan,
                                                  const std::function<size_t(size_t)>& seen) const;
  std::string job_output(const Job& job, const text::HtmlDocument& doc, const LinePlan& plan,
                         const std::vector<std::vector<Hypothesis>>& hypotheses,
                         const std::vector<std::string>& outputs) const;

  Translator& translator_;
  PlanTranslator plans_;
  ModelCall model_call_;
  int64_t alignment_layer_;
  text::PlaceholderOptions placeholders_;
  std::shared_ptr<const memory::Glossary> glossary_;  // null: the translator's own
  text::SentenceSplitter splitter_;
};

}  // namespace nmt::decode
