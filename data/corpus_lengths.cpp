#include "data/corpus_lengths.h"

#include <algorithm>
#include <filesystem>

namespace nmt::data {

namespace fs = std::filesystem;

storage::LengthProfile corpus_length_profile(const std::vector<const EncodedCorpus*>& corpora,
                                             const vocab::Vocabularies& vocabs) {
  constexpr int64_t kIdSample = 200000;  // pairs whose ids are read for the openers
  int64_t pairs = 0;
  for (const auto* c : corpora) pairs += c->size();
  const int64_t stride = std::max<int64_t>(1, pairs / kIdSample);
  storage::LengthProfileBuilder builder;
  int64_t seen = 0;
  for (const auto* corpus : corpora) {
    for (int64_t i = 0; i < corpus->size(); ++i, ++seen) {
      builder.add(corpus->src_len(i), corpus->tgt_len(i));
      if (seen % stride == 0) builder.add_ids(corpus->src(i), corpus->tgt(i));
    }
  }
  return builder.finish([&](int32_t id) { return vocabs.src->id_to_piece(id); },
                        [&](int32_t id) { return vocabs.tgt->id_to_piece(id); });
}

std::vector<std::shared_ptr<const EncodedCorpus>> cached_training_corpora(const std::string& model_dir,
                                                                          const Config& config) {
  const std::string dir = config.data.cache_dir_in(model_dir);
  std::vector<std::shared_ptr<const EncodedCorpus>> out;
  std::error_code ec;
  for (const auto& corpus : config.data.training_corpora()) {
    // Named SRC_FILE-KEY.ids, KEY in hex (data/corpus_cache.h); the newest if there are several.
    const std::string prefix = fs::path(corpus.src).filename().string() + "-";
    std::shared_ptr<const EncodedCorpus> found;
    fs::file_time_type newest{};
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
      const std::string name = entry.path().filename().string();
      if (name.rfind(prefix, 0) != 0 || entry.path().extension() != ".ids") continue;
      const std::string hex = name.substr(prefix.size(), name.size() - prefix.size() - 4);
      if (hex.empty() || hex.find_first_not_of("0123456789abcdef") != std::string::npos) continue;
      auto opened = EncodedCorpus::open(entry.path().string(), std::stoull(hex, nullptr, 16));
      const auto time = fs::last_write_time(entry.path(), ec);
      if (opened && (!found || time > newest)) found = std::move(opened), newest = time;
    }
    if (!found) return {};
    out.push_back(std::move(found));
  }
  return out;
}

}  // namespace nmt::data
