// BLEU and chrF on arbitrary hypothesis and reference text (the input split
// at its first NUL byte, each side into lines). Scores must be numbers in
// [0, 100] whatever the text.
#include <cmath>
#include <string>
#include <vector>

#include "eval/bleu.h"
#include "eval/chrf.h"
#include "fuzz_support.h"

namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out(1);
  for (char c : text) {
    if (c == '\n') {
      out.emplace_back();
    } else {
      out.back().push_back(c);
    }
  }
  return out;
}

void check_score(double s) {
  if (!std::isfinite(s) || s < 0 || s > 100.0000001) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const size_t nul = text.find('\0');
  const auto hyps = lines_of(text.substr(0, nul));
  const auto refs = lines_of(nul == std::string::npos ? std::string() : text.substr(nul + 1));
  nmt::fuzz::expect_only_our_errors([&] {
    check_score(nmt::eval::corpus_bleu(hyps, refs).score);
    check_score(nmt::eval::corpus_chrf(hyps, refs));
    check_score(nmt::eval::sentence_bleu(hyps[0], refs[0]));
  });
  return 0;
}
