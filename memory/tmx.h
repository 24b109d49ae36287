// Suggestions as TMX 1.4 (the translation-memory exchange format CAT tools
// and Weblate read and write) and as TSV. Export writes the oldest first,
// one <tu> per suggestion (source and suggestion as two <tuv>s, its status
// as a prop, its time as creationdate), so that exporting what was imported
// into an empty store gives the same bytes. Import reads any TMX: each <tu>'s
// variant in the header's srclang (else its first) is the source, every other
// variant a translation of it; language codes lose their region ("en-US" ->
// "en"); text inside inline codes is kept as text.
#pragma once

#include <string>
#include <vector>

#include "memory/suggestion_store.h"

namespace nmt::memory {

std::string write_tmx(const std::vector<Suggestion>& suggestions);
// A DataError naming `name` and the line of what is wrong (not XML, a
// DOCTYPE, a <tu> without a source or a <seg>). Every suggestion read has
// status `status` unless the TMX says otherwise (our own x-status prop).
std::vector<Suggestion> read_tmx(const std::string& xml, const std::string& name,
                                 SuggestionStatus status = SuggestionStatus::kAccepted);

// "source_lang TAB target_lang TAB source TAB suggestion TAB status" lines
// under a header line; tabs, line breaks and backslashes in text as \t \n \r \\.
std::string write_tsv(const std::vector<Suggestion>& suggestions);

}  // namespace nmt::memory
