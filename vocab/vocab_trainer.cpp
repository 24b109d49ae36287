#include "vocab/vocab_trainer.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <exception>
#include <fstream>
#include <system_error>
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

struct SampledLine {
  int64_t line;  // its place in the file, to write the sample in file order
  std::string text;
};

// Algorithm R: the first `wanted` usable lines fill the reservoir, and line t
// after them replaces a random one with probability wanted / (t + 1), which
// leaves every subset of `wanted` lines equally likely, in one pass.
std::vector<SampledLine> sample_file(const std::string& path, int64_t wanted, uint64_t seed) {
  Rng rng(seed);
  std::vector<SampledLine> reservoir;
  text::LineReader reader = open_corpus(path);
  std::string_view line;
  int64_t usable = 0;
  while (reader.next(line)) {
    if (reader.skipped() || line.find_first_not_of(" \t") == std::string_view::npos) continue;
    const int64_t t = usable++;
    if (t < wanted) {
      reservoir.push_back({reader.line_number(), std::string(line)});
      continue;
    }
    const auto j = static_cast<int64_t>(rng.below(static_cast<uint64_t>(t) + 1));
    if (j < wanted) reservoir[static_cast<size_t>(j)] = {reader.line_number(), std::string(line)};
  }
  std::sort(reservoir.begin(), reservoir.end(),
            [](const SampledLine& a, const SampledLine& b) { return a.line < b.line; });
  return reservoir;
}

// Samples every file, `threads` files at a time.
std::vector<std::vector<SampledLine>> sample_files(const std::vector<std::string>& files, int64_t share,
                                                   uint64_t seed, int threads) {
  std::vector<std::vector<SampledLine>> samples(files.size());
  std::vector<std::exception_ptr> errors(files.size());
  const size_t at_once = static_cast<size_t>(std::max(1, threads));
  for (size_t first = 0; first < files.size(); first += at_once) {
    std::vector<std::thread> pool;
    for (size_t f = first; f < std::min(files.size(), first + at_once); ++f) {
      auto work = [&, f] {
        try {
          samples[f] = sample_file(files[f], share, mix64(seed + f * kGoldenGamma));
        } catch (...) {
          errors[f] = std::current_exception();
        }
      };
      try {
        pool.emplace_back(work);
      } catch (const std::system_error&) {
        work();  // no thread to be had (a thread limit): on this one
      }
    }
    for (auto& t : pool) t.join();
  }
  for (auto& e : errors) {
    if (e) std::rethrow_exception(e);
  }
  return samples;
}

std::string join(const std::vector<std::string>& files) {
  std::string s;
  for (const auto& f : files) s += (s.empty() ? "" : " and ") + f;
  return s;
}

}  // namespace

int64_t write_training_sample(const std::vector<std::string>& files, int64_t max_lines,
                              uint64_t seed, const std::string& out_path, int threads) {
  std::ofstream out(out_path, std::ios::binary | std::ios::trunc);
  if (!out) throw DataError("Cannot write the vocabulary training sample " + out_path + ".");
  const int64_t share = std::max<int64_t>(1, max_lines / static_cast<int64_t>(files.size()));
  // "vocab": independent of other uses of the seed
  const auto samples = sample_files(files, share, seed ^ 0x766F636162ull, threads);
  int64_t written = 0;
  for (const auto& sample : samples) {
    for (const SampledLine& l : sample) {
      out.write(l.text.data(), static_cast<std::streamsize>(l.text.size()));
      out.put('\n');
      ++written;
    }
  }
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
  const int threads = options.threads > 0 ? options.threads
                                          : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int64_t lines = write_training_sample(files, options.max_lines, options.seed, sample, threads);
  if (lines == 0) {
    throw DataError("Cannot train a vocabulary: " + join(files) + " contain no non-empty lines.");
  }
  std::string user_symbols;
  for (const std::string& symbol : options.user_symbols) user_symbols += (user_symbols.empty() ? "" : ",") + symbol;
  std::vector<std::pair<std::string, std::string>> args = {
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
  if (!user_symbols.empty()) args.push_back({"user_defined_symbols", user_symbols});
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
