// Helpers for the data and vocabulary tests: scratch directories, files in
// plain text or gzip, and a small synthetic parallel corpus.
#pragma once

#include <unistd.h>
#include <zlib.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "util/config.h"

namespace nmt::test {

// A fresh directory under the system's temporary folder, removed at scope exit.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "nmt_data_test_XXXXXX").string();
    if (mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    root_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(root_, ec);
  }
  std::string path(const std::string& name) const { return (std::filesystem::path(root_) / name).string(); }
  const std::string& root() const { return root_; }

 private:
  std::string root_;
};

inline void write_file(const std::string& path, const std::string& content) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << content;
}

inline void write_gz(const std::string& path, const std::string& content) {
  gzFile f = gzopen(path.c_str(), "wb");
  gzwrite(f, content.data(), static_cast<unsigned>(content.size()));
  gzclose(f);
}

inline std::string join_lines(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += l + "\n";
  return s;
}

// n aligned sentence pairs of a toy English/German, varied in length.
inline void make_toy_corpus(int n, std::vector<std::string>& en, std::vector<std::string>& de) {
  const char* nouns_en[] = {"man", "woman", "dog", "child", "bicycle", "street", "ball", "house"};
  const char* nouns_de[] = {"Mann", "Frau", "Hund", "Kind", "Fahrrad", "Straße", "Ball", "Haus"};
  const char* verbs_en[] = {"sees", "rides", "plays with", "walks to"};
  const char* verbs_de[] = {"sieht", "fährt", "spielt mit", "geht zu"};
  unsigned x = 12345;
  auto next = [&x](unsigned m) {
    x = x * 1103515245u + 12345u;
    return (x >> 16) % m;
  };
  for (int i = 0; i < n; ++i) {
    std::string e = "A", d = "Ein";
    const int clauses = 1 + static_cast<int>(next(3));
    for (int c = 0; c < clauses; ++c) {
      const unsigned a = next(8), v = next(4), b = next(8);
      e += std::string(c ? " and the " : " ") + nouns_en[a] + " " + verbs_en[v] + " the " + nouns_en[b];
      d += std::string(c ? " und der " : " ") + nouns_de[a] + " " + verbs_de[v] + " dem " + nouns_de[b];
    }
    en.push_back(e + ".");
    de.push_back(d + ".");
  }
}

// Writes `pairs` toy sentence pairs as dir/train.de (gzipped with
// `gzip_source`) -> dir/train.en and returns a config over them with a
// 100-piece joint vocabulary and one thread.
inline Config toy_corpus_config(const TempDir& dir, int pairs, bool gzip_source = false) {
  std::vector<std::string> en, de;
  make_toy_corpus(pairs, en, de);
  Config c;
  c.data.train_src = dir.path(gzip_source ? "train.de.gz" : "train.de");
  c.data.train_tgt = dir.path("train.en");
  if (gzip_source) {
    write_gz(c.data.train_src, join_lines(de));
  } else {
    write_file(c.data.train_src, join_lines(de));
  }
  write_file(c.data.train_tgt, join_lines(en));
  c.vocab.size = 100;
  c.train.threads = 1;
  return c;
}

}  // namespace nmt::test
