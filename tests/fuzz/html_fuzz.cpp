// The HTML reader and the markup transfer on arbitrary bytes: every run lies
// inside the document, its inline elements nest inside its text, and the
// document rebuilt with its words reordered and its elements carried to them
// parses to the same element tree as the input.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "fuzz_support.h"
#include "tests/html_test_util.h"
#include "text/html_document.h"
#include "text/markup_transfer.h"
#include "text/utf8.h"

namespace {

void check_runs(const nmt::text::HtmlDocument& d) {
  const size_t n = d.source().size();
  size_t last = 0;
  for (const auto& r : d.runs()) {
    if (r.source.begin > r.source.end || r.source.end > n) std::abort();
    if (r.attribute) continue;  // an attribute may lie inside a text run's inline tags
    if (r.source.begin < last) std::abort();  // text runs do not overlap
    last = r.source.end;
    for (size_t e = 0; e < r.elements.size(); ++e) {
      const auto& el = r.elements[e];
      if (el.begin > el.end || el.end > r.text.size() || el.parent >= static_cast<int>(e)) std::abort();
      if (el.open.end > n || el.open.begin >= el.open.end || el.close.end > n) std::abort();
      if (el.parent >= 0) {
        const auto& p = r.elements[static_cast<size_t>(el.parent)];
        if (el.begin < p.begin || el.end > p.end) std::abort();
      }
    }
  }
}

// The run's words, aligned to their own positions read backwards (a
// reordering), with the run's own tags as the translator writes them out.
std::string transfer_reversed(const nmt::text::HtmlDocument& d, const nmt::text::HtmlRun& r,
                              const std::vector<std::string>& outputs) {
  std::vector<nmt::text::AlignedWord> words;
  for (size_t at = 0; at < r.text.size();) {
    const size_t end = std::min(r.text.find(' ', at), r.text.size());
    if (end > at) words.push_back({r.text.substr(at, end - at), at});
    at = end + 1;
  }
  std::vector<nmt::text::AlignedWord> reversed(words.rbegin(), words.rend());
  std::vector<nmt::text::MarkupElement> elements;
  for (const auto& el : r.elements) {
    elements.push_back({el.begin, el.end, el.parent, d.with_attributes(el.open, outputs),
                        d.source().substr(el.close.begin, el.close.size())});
  }
  return nmt::text::transfer_markup(reversed, elements);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string html(reinterpret_cast<const char*>(data), size);
  if (nmt::text::find_invalid_utf8(html) != html.size()) return 0;  // the translator refuses it before parsing
  nmt::fuzz::expect_only_our_errors([&] {
    const nmt::text::HtmlDocument d(html);
    check_runs(d);
    std::vector<std::string> outputs(d.runs().size());
    for (size_t k = 0; k < d.runs().size(); ++k) {  // attributes first: tags inside text runs carry them
      if (d.runs()[k].attribute) outputs[k] = d.runs()[k].text + "\"'&<";
    }
    for (size_t k = 0; k < d.runs().size(); ++k) {
      if (!d.runs()[k].attribute) outputs[k] = transfer_reversed(d, d.runs()[k], outputs);
    }
    const std::string out = d.render(outputs);
    if (d.runs().empty() && out != html) std::abort();  // nothing to translate: nothing changes
    // The same elements, nested the same way, whatever the text became.
    if (nmt::test::element_tree(out) != nmt::test::element_tree(html)) {
      std::fprintf(stderr, "finding: the element tree changed:\n%s\n%s\n", nmt::test::element_tree(html).c_str(),
                   nmt::test::element_tree(out).c_str());
      std::abort();
    }
  });
  return 0;
}
