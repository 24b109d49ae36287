#include "vocab/copied_pieces.h"

namespace nmt::vocab {
namespace {

const std::string kWordStart = "\xE2\x96\x81";  // "▁"

bool starts_word(const std::string& piece) { return piece.compare(0, kWordStart.size(), kWordStart) == 0; }

std::string spaced(std::string piece) {
  for (size_t at = piece.find(kWordStart); at != std::string::npos; at = piece.find(kWordStart, at + 1)) {
    piece.replace(at, kWordStart.size(), " ");
  }
  return piece;
}

}  // namespace

std::string decode_with_copies(const Vocab& target, const std::vector<int64_t>& ids,
                               const std::vector<std::string>& copies) {
  const bool by_spaces = target.segmenter_path().empty();
  std::string text;
  std::vector<int64_t> run;  // ids since the last copy
  const auto add = [&](std::string part, bool word) {
    if (part.empty()) return;
    if (by_spaces) {
      if (!text.empty()) text += ' ';
    } else if (word && (part.front() != ' ')) {
      part.insert(part.begin(), ' ');  // SentencePiece drops a run's first space
    }
    text += part;
  };
  const auto flush = [&] {
    if (run.empty()) return;
    add(target.decode(run), starts_word(target.id_to_piece(static_cast<int32_t>(run.front()))));
    run.clear();
  };
  size_t copied = 0;
  for (const int64_t id : ids) {
    if (id == target.eos_id()) break;
    if (id != target.unk_id() || copied == copies.size()) {
      run.push_back(id);
      continue;
    }
    flush();
    add(by_spaces ? copies[copied] : spaced(copies[copied]), false);
    ++copied;
  }
  flush();
  if (!by_spaces && !text.empty() && text.front() == ' ') text.erase(text.begin());
  return text;
}

}  // namespace nmt::vocab
