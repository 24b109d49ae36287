// Shared by the libFuzzer targets (one per reader of untrusted input): a
// scratch file to hand readers that take a path, and the rule every target
// checks, that bad input ends in one of our errors (nmt::Error: a message and
// an exit code) and nothing else - no other exception, no crash.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "util/error.h"

namespace nmt::fuzz {

// A file in the temporary directory, unique to this process and name,
// rewritten for every input and removed at exit.
class ScratchFile {
 public:
  explicit ScratchFile(const std::string& name)
      : path_(std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") + "/nmt_fuzz_" +
              std::to_string(::getpid()) + "_" + name) {}
  ~ScratchFile() { std::remove(path_.c_str()); }

  const std::string& write(const uint8_t* data, size_t size) {
    std::FILE* f = std::fopen(path_.c_str(), "wb");
    if (f == nullptr || (size > 0 && std::fwrite(data, 1, size, f) != size) || std::fclose(f) != 0) {
      std::perror(path_.c_str());
      std::abort();
    }
    return path_;
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Runs f; our own errors are the expected outcome of bad input, anything else
// is a finding.
template <typename F>
void expect_only_our_errors(F&& f) {
  try {
    f();
  } catch (const nmt::Error&) {
  } catch (const std::exception& e) {
    std::fprintf(stderr, "finding: an exception other than nmt::Error escaped: %s\n", e.what());
    std::abort();
  }
}

}  // namespace nmt::fuzz
