// Checkpoint averaging (Vaswani et al. 2017; fairseq's average_checkpoints):
// the element-wise mean of the weights of several checkpoints of one model,
// usually the last few of a run. It smooths the noise of the final updates
// and typically gains about a BLEU point over the last checkpoint alone.
#pragma once

#include <string>
#include <vector>

#include "storage/checkpoint.h"

namespace nmt::storage {

// Averages the checkpoints at `paths` (at least one). Floating-point weights
// are summed in float64 and divided once, so N copies of one checkpoint give
// it back bit for bit; other tensors must agree exactly. The result carries
// the config and progress of the newest checkpoint (highest step), the
// averaged steps under state["averaged_steps"], and no optimizer state: it is
// for translating and exporting, not for resuming. Checkpoints of different
// models (architecture, parameter names or shapes) are a DataError naming
// the file.
Checkpoint average_checkpoints(const std::vector<std::string>& paths);

}  // namespace nmt::storage
