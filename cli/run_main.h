// The one place where exceptions become the exit codes of docs/errors.md.
#pragma once

#include <functional>

namespace nmt::cli {

// Sets process-wide allocator behaviour, then runs `body`, turning any
// exception into one message on stderr and an exit code (2 usage/config,
// 3 data/vocab/model/checkpoint, 1 anything else).
int run_main(const char* program, const std::function<int()>& body);

}  // namespace nmt::cli
