// Decoding runs without dropout: a model borrowed from training is put in
// eval mode for a pass and goes back to training mode afterwards. A model in
// eval mode already is left untouched (nothing written), so that the
// server's workers may decode on it at once.
#pragma once

#include "model/transformer.h"

namespace nmt::decode {

class EvalMode {
 public:
  explicit EvalMode(model::TransformerImpl& model) : model_(model), was_training_(model.is_training()) {
    if (was_training_) model_.eval();
  }
  ~EvalMode() {
    if (was_training_) model_.train();
  }
  EvalMode(const EvalMode&) = delete;
  EvalMode& operator=(const EvalMode&) = delete;

 private:
  model::TransformerImpl& model_;
  bool was_training_;
};

}  // namespace nmt::decode
