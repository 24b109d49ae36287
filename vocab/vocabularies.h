// The source and target vocabularies of a run, kept in OUT/vocab/ so that the
// output directory is self-contained:
//   OUT/vocab/spm.model               joint (trained here, or vocab.model copied)
//   OUT/vocab/src.model, tgt.model    one per side
//   OUT/vocab/vocab.json              which of the two, and the settings used
#pragma once

#include <memory>
#include <string>

#include "vocab/vocab.h"

namespace nmt {
struct Config;
}

namespace nmt::vocab {

struct Vocabularies {
  std::shared_ptr<const Vocab> src, tgt;  // the same object when joint
  bool joint = true;
  bool reused = false;      // true when OUT/vocab/ already held them
  std::string cached_from;  // the data cache's copy they came from, when one was there
  double seconds = 0;       // spent training them
};

// Trains the model(s) from the training corpora as vocab.* says (with the
// corpora's tags as pieces of their own), or copies vocab.model, into
// OUT/vocab/. When OUT/vocab/ already holds vocabularies made with the same
// settings (a resumed run) they are reused; other settings are a DataError
// (the checkpoints there depend on them). A trained vocabulary is also kept
// in the data cache (data.cache_dir) under a key of its files and settings,
// and a later run with the same ones copies it from there instead of
// training again.
Vocabularies prepare_vocabularies(const Config& config, const std::string& out_dir);

// The vocabularies of the run in run_dir (trainer --init-from), copied into
// OUT/vocab/ as they are, or found there already (a resumed fine-tuning run:
// then they must be the same files, or it is a DataError).
Vocabularies adopt_vocabularies(const std::string& run_dir, const std::string& out_dir);

// Loads what prepare_vocabularies wrote into model_dir/vocab/. Throws
// nmt::DataError naming the file when it is missing or damaged.
Vocabularies load_vocabularies(const std::string& model_dir);

}  // namespace nmt::vocab
