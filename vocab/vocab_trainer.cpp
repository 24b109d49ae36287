#include "vocab/vocab_trainer.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>

#include "text/line_reader.h"
#include "util/error.h"
#include "util/random.h"
#include "vocab/spm_bridge_loader.h"

namespace nmt::vocab {
namespace {

// Lines over the byte limit are skipped here as the id cache skips them (and
// counts them: data/corpus_cache.h).
text::LineReader open_corpus(const std::string& path) {
  return text::LineReader(path, text::kMaxLineBytes, text::LongLines::kSkip);
}

int64_t count_lines(const std::string& path) {
  text::LineReader reader = open_corpus(path);
  std::string_view line;
  while (reader.next(line)) {
  }
  return reader.line_number();
}

// Knuth's selection sampling (Algorithm S): line t of n is taken with
// probability (wanted - taken) / (n - t), which yields exactly `wanted` lines,
// every subset equally likely.
int64_t sample_file(const std::string& path, int64_t wanted, Rng& rng, std::ofstream& out) {
  const int64_t n = count_lines(path);
  text::LineReader reader = open_corpus(path);
  std::string_view line;
  int64_t taken = 0, written = 0;
  for (int64_t t = 0; reader.next(line); ++t) {
    if (taken >= wanted) break;
    const bool take = wanted >= n || rng.uniform() * static_cast<double>(n - t) < static_cast<double>(wanted - taken);
    if (!take) continue;
    ++taken;
    if (reader.skipped() || line.find_first_not_of(" \t") == std::string_view::npos) continue;
    out.write(line.data(), static_cast<std::streamsize>(line.size()));
    out.put('\n');
    ++written;
  }
  return written;
}

std::string join(const std::vector<std::string>& files) {
  std::string s;
  for (const auto& f : files) s += (s.empty() ? "" : " and ") + f;
  return s;
}

}  // namespace

int64_t write_training_sample(const std::vector<std::string>& files, int64_t max_lines,
                              uint64_t seed, const std::string& out_path) {
  std::ofstream out(out_path, std::ios::binary | std::ios::trunc);
  if (!out) throw DataError("Cannot write the vocabulary training sample " + out_path + ".");
  Rng rng(seed ^ 0x766F636162ull);  // "vocab": independent of other uses of the seed
  const int64_t share = std::max<int64_t>(1, max_lines / static_cast<int64_t>(files.size()));
  int64_t written = 0;
  for (const auto& file : files) written += sample_file(file, share, rng, out);
  out.close();
  if (!out) throw DataError("Cannot write the vocabulary training sample " + out_path + " (disk full?).");
  return written;
}

void train_sentencepiece(const std::vector<std::string>& files, const std::string& model_prefix,
                         const VocabTrainOptions& options) {
  const std::string sample = model_prefix + ".sample.txt";
  struct Cleanup {
    std::string path;
    ~Cleanup() { std::remove(path.c_str()); }
  } cleanup{sample};
  const int64_t lines = write_training_sample(files, options.max_lines, options.seed, sample);
  if (lines == 0) {
    throw DataError("Cannot train a vocabulary: " + join(files) + " contain no non-empty lines.");
  }
  const int threads = options.threads > 0 ? options.threads
                                          : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const std::vector<std::pair<std::string, std::string>> args = {
      {"input", sample},
      {"model_prefix", model_prefix},
      {"model_type", options.type},
      {"vocab_size", std::to_string(options.size)},
      // A small corpus may not support the size asked for; take what it gives.
      {"hard_vocab_limit", "false"},
      {"character_coverage", "0.9995"},
      {"unk_id", "0"},
      {"pad_id", "1"},
      {"bos_id", "2"},
      {"eos_id", "3"},
      {"input_sentence_size", "0"},
      {"num_threads", std::to_string(threads)},
      {"minloglevel", "1"},
  };
  std::vector<const char*> keys, values;
  for (const auto& [k, v] : args) {
    keys.push_back(k.c_str());
    values.push_back(v.c_str());
  }
  const SpmBridge& b = spm_bridge();
  char* error = nullptr;
  if (b.train(keys.data(), values.data(), static_cast<int>(keys.size()), &error) != 0) {
    throw DataError("Training a SentencePiece " + options.type + " vocabulary of " +
                    std::to_string(options.size) + " pieces on " + join(files) +
                    " failed: " + b.take_error(error));
  }
}

}  // namespace nmt::vocab
