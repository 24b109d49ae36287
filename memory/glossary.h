// Glossaries: terms that must be translated so ("pull request" ->
// "Pull-Request"). A glossary is the terms of one language pair; a term base
// is what a glossary file holds (a TSV of one pair, or a TBX of concepts in
// any number of languages), from which each served pair takes its glossary.
//
// Finding terms in a text: a term written all in lower case matches in any
// case ("pull request" finds "Pull request" at a sentence's start and "PULL
// REQUEST"); a term with a capital matches only as written ("US" does not
// find "us"). A match starts and ends at word edges (no letter or digit
// beside a term's letter or digit), and longer terms win over the shorter
// ones they contain.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "text/span.h"

namespace nmt::memory {

struct Term {
  std::string source, target;
  bool operator==(const Term& o) const { return source == o.source && target == o.target; }
};

struct TermMatch {
  text::Span span;   // the source term's bytes in the text searched
  size_t term = 0;   // index into Glossary::terms()
};

class Glossary {
 public:
  // A later term with the same source replaces an earlier one. DataError
  // when either side is empty or only whitespace.
  void add(const std::string& source, const std::string& target);
  const std::vector<Term>& terms() const { return terms_; }
  bool empty() const { return terms_.empty(); }
  size_t size() const { return terms_.size(); }
  // This glossary's terms with `over`'s added (theirs win on the same source).
  Glossary merged_with(const Glossary& over) const;
  // The terms in `text`, in text order, not overlapping (longest first where
  // two start at the same place, the earlier where they overlap).
  std::vector<TermMatch> find(std::string_view text) const;

 private:
  struct Pattern {
    std::vector<int32_t> code_points;  // case-folded where the term matches in any case
    bool any_case = false;
  };
  std::vector<Term> terms_;
  std::vector<Pattern> patterns_;                            // per term
  std::unordered_map<std::string, size_t> by_source_;        // source term -> its index
  // A trie of the terms' case-folded code points: find() walks it once from
  // each word start, whatever the number of terms.
  struct Node {
    std::unordered_map<int32_t, size_t> next;  // folded code point -> node
    std::vector<size_t> terms;                 // the terms ending here (verified against their case)
  };
  std::vector<Node> trie_{Node{}};
};

// What a glossary file holds: concepts, each a term (or several) per language.
struct TermBase {
  std::string path;
  // Per concept: language code (primary subtag, lower case) -> its terms, preferred first.
  std::vector<std::map<std::string, std::vector<std::string>>> concepts;
  bool names_languages = true;  // false: a TSV without a header line of its pair

  // The glossary of a pair: each source term of a concept that has both
  // languages, to the concept's preferred target term.
  Glossary glossary(const std::string& source_language, const std::string& target_language) const;
};

// Reads a glossary file by its contents: TBX (XML whose root is <martif> or
// <tbx>: termEntry/conceptEntry, langSet/langSec with xml:lang, term) or TSV
// (source TAB target a line; blank lines and lines starting with # skipped;
// a first line of two language codes, "en<TAB>de", names its pair). A TSV
// without that line is of the pair `source_language`-`target_language`
// where given (both non-empty), else names no languages. DataError naming
// the file (and the line) for what cannot be read.
TermBase read_term_base(const std::string& path, const std::string& source_language = "",
                        const std::string& target_language = "");
// The same on a file's bytes, named `name` in messages.
TermBase parse_term_base(const std::string& bytes, const std::string& name, const std::string& source_language = "",
                         const std::string& target_language = "");

// A glossary given as `[SRC-TGT=]FILE` (--glossary en-de=terms.tsv): the
// pair it is for, when named, and the file.
struct GlossarySource {
  std::string path, source_language, target_language;
};
GlossarySource parse_glossary_source(const std::string& argument);

// The files given as `[SRC-TGT=]FILE`, each read (read_term_base).
std::vector<TermBase> read_glossaries(const std::vector<std::string>& arguments);

// The glossary a file gives a served pair (empty: none of its terms). A TSV
// that names no pair applies when `only_pair` (one pair is served), else it
// is a DataError asking for its pair.
Glossary pair_glossary(const TermBase& base, const std::string& source_language, const std::string& target_language,
                       bool only_pair);

// The glossary of a served pair from every file given, later files winning
// on the same source term (null when none has a term for it). A TSV that
// names no pair applies when `only_pair` (one pair is served), else it is a
// DataError asking for its pair.
std::shared_ptr<const Glossary> glossary_for_pair(const std::vector<TermBase>& bases, const std::string& source_language,
                                                  const std::string& target_language, bool only_pair);

}  // namespace nmt::memory
