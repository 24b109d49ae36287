#include "cli/translator_output.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>

#include "decode/line_plan.h"
#include "decode/translation_stream.h"
#include "util/error.h"

namespace nmt::cli {

std::string line_numbers(const std::vector<int64_t>& lines) {
  std::string out;
  for (size_t i = 0; i < lines.size() && i < 10; ++i) out += (i ? ", " : "") + std::to_string(lines[i]);
  if (lines.size() > 10) out += ", ...";
  return out;
}

void print_summary(const decode::StreamReport& report, bool split_sentences, int64_t max_piece_tokens) {
  const auto& coverage = report.coverage;
  const bool checked = coverage.resplit_pieces + coverage.uncovered_pieces + coverage.length_limited > 0;
  if (!split_sentences && report.long_sentences == 0 && !checked) return;
  std::cerr << "translator: " << report.lines << " line(s), " << report.sentences << " sentence(s)";
  if (report.long_sentences > 0) {
    std::cerr << ", " << report.long_sentences << " of them longer than " << max_piece_tokens
              << " source tokens and translated in pieces (" << report.pieces << " pieces translated in all)";
  }
  std::cerr << ".\n";
  if (!checked) return;
  std::cerr << "translator: coverage: " << coverage.resplit_pieces
            << " piece(s) split further and translated again; " << coverage.uncovered_pieces
            << " piece(s) with source words still uncovered, " << coverage.length_limited
            << " stopped at the length limit";
  if (!report.failed_lines.empty()) std::cerr << " (line " << line_numbers(report.failed_lines) << ")";
  std::cerr << ".\n";
}

void write_translation(std::ostream& out, int64_t index, const decode::LineTranslation& t, bool nbest) {
  if (!nbest) {
    out << (t.texts.empty() ? std::string() : t.texts.front()) << '\n';
    return;
  }
  if (t.texts.empty()) {  // empty or invalid line: one empty hypothesis
    out << index << " |||  ||| 0.0000\n";
    return;
  }
  char score[32];
  for (size_t k = 0; k < t.texts.size(); ++k) {
    std::snprintf(score, sizeof score, "%.4f", t.scores[k]);
    out << index << " ||| " << t.texts[k] << " ||| " << score << '\n';
  }
}

namespace {

void sync_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

TranslationOutput::TranslationOutput(const std::string& path) : path_(path) {
  if (path_.empty()) return;
  tmp_ = path_ + ".tmp." + std::to_string(::getpid());
  file_.open(tmp_, std::ios::binary | std::ios::trunc);
  if (!file_) {
    throw Error("Cannot create the output file " + path_ + " (" + std::strerror(errno) + ").", kExitOther);
  }
}

TranslationOutput::~TranslationOutput() {
  if (path_.empty() || committed_) return;
  file_.close();
  std::remove(tmp_.c_str());
}

std::ostream& TranslationOutput::stream() { return path_.empty() ? std::cout : file_; }

void TranslationOutput::commit() {
  if (path_.empty()) {
    std::cout.flush();
    if (!std::cout) throw Error("Writing the translations to standard output failed.", kExitOther);
    committed_ = true;
    return;
  }
  file_.close();
  if (!file_) throw Error("Writing the output file " + path_ + " failed (disk full?).", kExitOther);
  sync_file(tmp_);
  if (std::rename(tmp_.c_str(), path_.c_str()) != 0) {
    throw Error("Cannot rename " + tmp_ + " to " + path_ + " (" + std::strerror(errno) + ").", kExitOther);
  }
  committed_ = true;
}

}  // namespace nmt::cli
