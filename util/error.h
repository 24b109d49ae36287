// Exceptions that carry the process exit code of docs/errors.md.
// Thrown anywhere with a full sentence naming the value and file; caught once
// in each main (cli/run_main.h) and turned into the exit code.
#pragma once

#include <stdexcept>
#include <string>

namespace nmt {

enum ExitCode : int {
  kExitOk = 0,
  kExitOther = 1,  // anything not classified below
  kExitUsage = 2,  // command-line and configuration errors
  kExitData = 3,   // data, vocabulary, model and checkpoint errors
};

class Error : public std::runtime_error {
 public:
  Error(const std::string& message, int exit_code)
      : std::runtime_error(message), exit_code_(exit_code) {}
  int exit_code() const { return exit_code_; }

 private:
  int exit_code_;
};

// Bad command line or configuration (exit 2).
class UsageError : public Error {
 public:
  explicit UsageError(const std::string& message) : Error(message, kExitUsage) {}
};

// Bad data, vocabulary, model directory or checkpoint (exit 3).
class DataError : public Error {
 public:
  explicit DataError(const std::string& message) : Error(message, kExitData) {}
};

}  // namespace nmt
