// Glossary files (TSV and TBX) on arbitrary bytes: terms or a DataError,
// never a crash; every pair's glossary finds its terms in the bytes
// themselves (where they are UTF-8), each match within the text, in order
// and apart.
#include <cstdlib>
#include <string>

#include "fuzz_support.h"
#include "memory/glossary.h"
#include "text/utf8.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  nmt::fuzz::expect_only_our_errors([&] {
    const auto base = nmt::memory::parse_term_base(bytes, "fuzz.tsv", "en", "de");
    std::string languages[] = {"en", "de"};
    for (const auto& concept_terms : base.concepts) {
      for (const auto& [language, terms] : concept_terms) {
        if (terms.empty()) continue;
        languages[0] = language;
        break;
      }
    }
    const auto glossary = base.glossary(languages[0], languages[1]);
    if (nmt::text::find_invalid_utf8(bytes) != bytes.size()) return;
    size_t last_end = 0;
    for (const auto& m : glossary.find(bytes)) {
      if (m.span.begin < last_end || m.span.end > bytes.size() || m.span.empty() || m.term >= glossary.size()) {
        std::abort();
      }
      last_end = m.span.end;
    }
  });
  return 0;
}
