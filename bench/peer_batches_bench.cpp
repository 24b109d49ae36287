// The trainer's own batches, in its order, for the PyTorch peer to train on
// (bench/train_memory_peer.sh): reads the configuration (with --set
// overrides) and the vocabularies and id caches a trainer run left in RUN_DIR,
// plans epochs from --epoch on exactly as the trainer does (train.seed,
// train.batch_tokens), and writes the first --count batches as a pickled list
// of (src, tgt_in, gold) int64 tensors, the file bench/pytorch_peer.py reads.
//
//   peer_batches_bench --config C.json --run RUN_DIR --write FILE [--count N] [--epoch N] [--set KEY=VALUE ...]
#include <cstdio>
#include <fstream>

#include <CLI/CLI.hpp>
#include <torch/torch.h>

#include "cli/run_main.h"
#include "data/training_data.h"
#include "train/trainer.h"
#include "util/config.h"
#include "util/error.h"
#include "vocab/vocabularies.h"

int main(int argc, char** argv) {
  return nmt::cli::run_main("peer_batches_bench", [&] {
    CLI::App app{"Writes the trainer's batches, in its order, for bench/pytorch_peer.py."};
    nmt::train::TrainerOptions options;
    std::string path;
    int64_t count = 1000, epoch = 0;
    app.add_option("--config", options.config_path, "The run's configuration")->required();
    app.add_option("--run", options.out_dir, "The run's output directory (its vocabularies and id caches)")
        ->required();
    app.add_option("--write", path, "The file to write")->required();
    app.add_option("--count", count, "Batches to write (over as many epochs as it takes)")->capture_default_str();
    app.add_option("--epoch", epoch, "The first epoch")->capture_default_str();
    app.add_option("--set", options.overrides, "KEY=VALUE over the configuration, as the trainer takes it");
    try {
      app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
      return app.exit(e);
    }
    const nmt::Config config = nmt::train::resolve_config(options);
    const auto vocabs = nmt::vocab::prepare_vocabularies(config, options.out_dir);
    const auto data = nmt::data::prepare_training_data(config, vocabs, options.out_dir);
    nmt::data::BatchIterator batches = nmt::data::make_train_iterator(data, config);  // as the trainer makes it
    if (epoch > 0) batches.start_epoch(epoch);
    c10::impl::GenericList list(c10::AnyType::get());
    nmt::data::Batch b;
    while (static_cast<int64_t>(list.size()) < count) {
      if (!batches.next(b)) {
        batches.start_epoch(batches.epoch() + 1);
        continue;
      }
      list.push_back(c10::ivalue::Tuple::create({b.src, b.tgt_in, b.gold}));
    }
    const auto bytes = torch::pickle_save(c10::IValue(list));
    std::ofstream out(path, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) throw nmt::Error("Cannot write " + path + ".", nmt::kExitOther);
    std::printf("%lld batches (epochs %lld-%lld) written to %s\n", static_cast<long long>(count),
                static_cast<long long>(epoch), static_cast<long long>(batches.epoch()), path.c_str());
    return 0;
  });
}
