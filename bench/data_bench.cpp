// Data pipeline benchmark.
//   data_bench                      all phases below, each in its own process
//   data_bench --phase multi30k     Multi30k train: vocabulary, encoding, padding share at 4096 tokens
//   data_bench --phase generate     writes a generated corpus of --pairs pairs (gzip)
//   data_bench --phase vocab        vocabulary from a sample of the generated corpus
//   data_bench --phase scale        encodes, caches and batches the generated corpus
// Options: --pairs N (1000000), --work DIR (/tmp/nmt_data_bench), --threads N (0: all),
// --multi30k DIR (data/multi30k, from scripts/get_data.sh multi30k).
// Each phase prints its figures and the process's peak RSS (getrusage ru_maxrss).
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>

#include <zlib.h>

#include "data/batch_iterator.h"
#include "data/corpus_cache.h"
#include "data/training_data.h"
#include "text/line_reader.h"
#include "util/config.h"
#include "util/error.h"
#include "util/random.h"
#include "vocab/vocabularies.h"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

struct Options {
  std::string phase;
  int64_t pairs = 1000000;
  std::string work = "/tmp/nmt_data_bench";
  int threads = 0;
  // CMake compiles with absolute paths: the repository's data/multi30k
  // (scripts/get_data.sh multi30k).
  std::string multi30k = (fs::path(__FILE__).parent_path() / "../data/multi30k").lexically_normal().string();
};

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

double peak_rss_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

double file_mib(const std::string& p) {
  std::error_code ec;
  const auto size = fs::file_size(p, ec);
  return ec ? 0.0 : static_cast<double>(size) / (1 << 20);
}

nmt::Config base_config(const Options& o, const std::string& src, const std::string& tgt) {
  nmt::Config c;
  c.data.train_src = src;
  c.data.train_tgt = tgt;
  c.vocab.size = 8000;
  c.vocab.type = "bpe";
  c.vocab.joint = true;
  c.train.batch_tokens = 4096;
  c.train.threads = o.threads;
  return c;
}

struct EpochFigures {
  int64_t batches = 0, pairs = 0, cells = 0, real = 0, src_cells = 0, src_real = 0;
  double seconds = 0;
};

EpochFigures run_epoch(nmt::data::BatchIterator& it) {
  EpochFigures f;
  const auto t0 = Clock::now();
  nmt::data::Batch b;
  while (it.next(b)) {
    ++f.batches;
    f.pairs += b.src.size(0);
    f.src_cells += b.src.numel();
    f.src_real += b.src_tokens;
    f.cells += b.src.numel() + b.gold.numel();
    f.real += b.src_tokens + b.tgt_tokens;
  }
  f.seconds = seconds_since(t0);
  return f;
}

void print_epoch(const EpochFigures& f) {
  const double share = 1.0 - static_cast<double>(f.real) / static_cast<double>(f.cells);
  const double src_share = 1.0 - static_cast<double>(f.src_real) / static_cast<double>(f.src_cells);
  const double tgt_share = 1.0 - static_cast<double>(f.real - f.src_real) / static_cast<double>(f.cells - f.src_cells);
  std::printf("  one epoch: %lld batches, %lld pairs in %.2f s (%.0f pairs/s)\n", static_cast<long long>(f.batches),
              static_cast<long long>(f.pairs), f.seconds, static_cast<double>(f.pairs) / f.seconds);
  std::printf("  padding share (src + gold cells): %.2f%%  (src %.2f%%, gold %.2f%%)\n", 100 * share, 100 * src_share,
              100 * tgt_share);
}

int phase_multi30k(const Options& o) {
  const std::string src = o.multi30k + "/train.de.gz", tgt = o.multi30k + "/train.en.gz";
  if (!fs::exists(src) || !fs::exists(tgt)) {
    std::printf("multi30k: skipped, %s not found\n", src.c_str());
    return 0;
  }
  const std::string out = o.work + "/multi30k_out";
  fs::remove_all(out);
  const nmt::Config config = base_config(o, src, tgt);
  auto t0 = Clock::now();
  const auto vocabs = nmt::vocab::prepare_vocabularies(config, out);
  const double vocab_s = seconds_since(t0);
  t0 = Clock::now();
  const auto data = nmt::data::prepare_training_data(config, vocabs, out);
  const double prepare_s = seconds_since(t0);
  t0 = Clock::now();
  const auto again = nmt::data::prepare_training_data(config, vocabs, out);
  const double reuse_s = seconds_since(t0);
  std::printf("multi30k (de-en, joint BPE %lld, batch_tokens %lld):\n", static_cast<long long>(vocabs.src->size()),
              static_cast<long long>(config.train.batch_tokens));
  std::printf("  vocabulary trained in %.2f s\n", vocab_s);
  std::printf("  encoded + cached in %.2f s (%.0f pairs/s); cache reused in %.3f s (%s)\n", prepare_s,
              static_cast<double>(data.train->corpus(0).stats().read) / prepare_s, reuse_s,
              again.train_reused() ? "reused" : "NOT reused");
  std::printf("  filter: %s\n", data.train->corpus(0).stats().summary().c_str());
  auto it = nmt::data::make_train_iterator(data, config);
  print_epoch(run_epoch(it));
  std::printf("  peak RSS: %.1f MiB\n", peak_rss_mib());
  return 0;
}

// Sentences of the generated corpus: Multi30k pairs, alone or two joined,
// so lengths and vocabulary stay natural; a toy language without Multi30k.
int phase_generate(const Options& o) {
  std::vector<std::string> de, en;
  if (fs::exists(o.multi30k + "/train.de.gz")) {
    nmt::text::LineReader a(o.multi30k + "/train.de.gz"), b(o.multi30k + "/train.en.gz");
    std::string_view x, y;
    while (a.next(x) && b.next(y)) {
      de.emplace_back(x);
      en.emplace_back(y);
    }
  } else {
    for (int i = 0; i < 1000; ++i) {
      de.push_back("Satz " + std::to_string(i) + " mit einigen Wörtern.");
      en.push_back("Sentence " + std::to_string(i) + " with some words.");
    }
  }
  fs::create_directories(o.work);
  const auto t0 = Clock::now();
  gzFile fs_ = gzopen((o.work + "/gen.de.gz").c_str(), "wb1");
  gzFile ft = gzopen((o.work + "/gen.en.gz").c_str(), "wb1");
  nmt::Rng rng(2024);
  std::string s, t;
  for (int64_t i = 0; i < o.pairs; ++i) {
    const auto j = rng.below(de.size());
    s = de[j];
    t = en[j];
    if (rng.below(4) == 0) {
      const auto k = rng.below(de.size());
      s += " " + de[k];
      t += " " + en[k];
    }
    s += '\n';
    t += '\n';
    gzwrite(fs_, s.data(), static_cast<unsigned>(s.size()));
    gzwrite(ft, t.data(), static_cast<unsigned>(t.size()));
  }
  gzclose(fs_);
  gzclose(ft);
  std::printf("generate: %lld pairs written in %.1f s (%.1f + %.1f MiB gzip)\n", static_cast<long long>(o.pairs),
              seconds_since(t0), file_mib(o.work + "/gen.de.gz"), file_mib(o.work + "/gen.en.gz"));
  return 0;
}

int phase_vocab(const Options& o) {
  nmt::Config config = base_config(o, o.work + "/gen.de.gz", o.work + "/gen.en.gz");
  config.vocab.max_train_lines = 200000;
  fs::remove_all(o.work + "/gen_out/vocab");
  const auto t0 = Clock::now();
  const auto vocabs = nmt::vocab::prepare_vocabularies(config, o.work + "/gen_out");
  std::printf("vocab: joint BPE %lld from a %lld-line sample of %lld pairs in %.1f s; peak RSS %.1f MiB\n",
              static_cast<long long>(vocabs.src->size()), static_cast<long long>(config.vocab.max_train_lines),
              static_cast<long long>(o.pairs), seconds_since(t0), peak_rss_mib());
  return 0;
}

int phase_scale(const Options& o) {
  const nmt::Config config = base_config(o, o.work + "/gen.de.gz", o.work + "/gen.en.gz");
  const std::string out = o.work + "/gen_out";
  const auto vocabs = nmt::vocab::load_vocabularies(out);
  fs::remove_all(out + "/data_cache");
  const double rss_start = peak_rss_mib();
  auto t0 = Clock::now();
  const auto data = nmt::data::prepare_training_data(config, vocabs, out);
  const double prepare_s = seconds_since(t0);
  const double rss_prepared = peak_rss_mib();
  const auto& corpus = data.train->corpus(0);
  const auto& stats = corpus.stats();
  std::printf("scale: %lld generated pairs (%.1f MiB gzip text)\n", static_cast<long long>(stats.read),
              file_mib(config.data.train_src) + file_mib(config.data.train_tgt));
  std::printf("  encoded + cached in %.1f s: %.0f pairs/s; cache %.1f MiB (%lld + %lld ids)\n", prepare_s,
              static_cast<double>(stats.read) / prepare_s, file_mib(corpus.path()),
              static_cast<long long>(corpus.src_tokens()), static_cast<long long>(corpus.tgt_tokens()));
  std::printf("  filter: %s\n", stats.summary().c_str());
  t0 = Clock::now();
  const auto again = nmt::data::prepare_training_data(config, vocabs, out);
  std::printf("  cache %s in %.3f s\n", again.train_reused() ? "reused" : "NOT reused", seconds_since(t0));
  t0 = Clock::now();
  auto it = nmt::data::make_train_iterator(data, config);
  std::printf("  epoch planned in %.2f s\n", seconds_since(t0));
  print_epoch(run_epoch(it));
  std::printf("  peak RSS: %.1f MiB at start (libtorch loaded), %.1f MiB after encoding, %.1f MiB after an epoch\n",
              rss_start, rss_prepared, peak_rss_mib());
  return 0;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i], value = argv[i + 1];
    if (key == "--phase") o.phase = value;
    else if (key == "--pairs") o.pairs = std::stoll(value);
    else if (key == "--work") o.work = value;
    else if (key == "--threads") o.threads = std::stoi(value);
    else if (key == "--multi30k") o.multi30k = value;
    else throw nmt::UsageError("Unknown option " + key);
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Options o = parse(argc, argv);
    const std::map<std::string, int (*)(const Options&)> phases = {
        {"multi30k", phase_multi30k}, {"generate", phase_generate}, {"vocab", phase_vocab}, {"scale", phase_scale}};
    if (!o.phase.empty()) {
      auto p = phases.find(o.phase);
      if (p == phases.end()) throw nmt::UsageError("Unknown phase " + o.phase);
      return p->second(o);
    }
    // Each phase in its own process, so that each peak RSS is its own.
    const std::string self = fs::read_symlink("/proc/self/exe").string();
    for (const char* phase : {"multi30k", "generate", "vocab", "scale"}) {
      std::string cmd = "'" + self + "' --phase " + phase + " --pairs " + std::to_string(o.pairs) + " --work '" +
                        o.work + "' --threads " + std::to_string(o.threads) + " --multi30k '" + o.multi30k + "'";
      std::fflush(stdout);
      if (std::system(cmd.c_str()) != 0) return 1;
    }
    return 0;
  } catch (const nmt::Error& e) {
    std::cerr << "data_bench: " << e.what() << "\n";
    return e.exit_code();
  } catch (const std::exception& e) {
    std::cerr << "data_bench: " << e.what() << "\n";
    return 1;
  }
}
