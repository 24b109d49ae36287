// Helpers shared by the tests: tensor comparison with a useful failure message,
// "this call fails with a message that says X", the tiny model every test that
// needs one builds, and the locations of fixtures.
#pragma once

#include <sys/wait.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <initializer_list>
#include <sstream>
#include <string>
#include <string_view>
#include <typeinfo>
#include <vector>

#include <gtest/gtest.h>
#include <torch/torch.h>

#include "model/transformer.h"
#include "util/config.h"

namespace nmt::test {

// Passes when |a - e| <= atol + rtol * |e| everywhere; otherwise reports both
// shapes and the largest absolute and relative difference with its position.
inline ::testing::AssertionResult tensors_close(const torch::Tensor& actual, const torch::Tensor& expected,
                                                double rtol, double atol) {
  if (!actual.sizes().equals(expected.sizes())) {
    std::ostringstream ss;
    ss << "shape mismatch: actual " << actual.sizes() << " vs expected " << expected.sizes();
    return ::testing::AssertionFailure() << ss.str();
  }
  auto a = actual.detach().to(torch::kCPU, torch::kDouble);
  auto e = expected.detach().to(torch::kCPU, torch::kDouble);
  auto diff = (a - e).abs();
  auto allowed = atol + rtol * e.abs();
  if ((diff <= allowed).all().item<bool>()) return ::testing::AssertionSuccess();
  auto worst = (diff - allowed).flatten().argmax().item<int64_t>();
  std::ostringstream ss;
  ss << "tensors differ (shape " << actual.sizes() << "): largest abs diff " << diff.max().item<double>()
     << "; worst element (flat index " << worst << ") actual " << a.flatten()[worst].item<double>() << " expected "
     << e.flatten()[worst].item<double>() << " (rtol " << rtol << ", atol " << atol << ")";
  return ::testing::AssertionFailure() << ss.str();
}

// Passes when f() throws an E whose message contains every one of `parts`;
// otherwise says what happened instead: no exception, another exception, or
// the message that lacks a part.
//   EXPECT_TRUE(test::throws_with<DataError>([&] { load_checkpoint(path); }, {path, "truncated"}));
template <typename E, typename F>
::testing::AssertionResult throws_with(F&& f, std::initializer_list<std::string_view> parts) {
  try {
    f();
  } catch (const E& e) {
    const std::string message = e.what();
    for (const auto part : parts) {
      if (message.find(part) == std::string::npos) {
        return ::testing::AssertionFailure() << "the message lacks \"" << part << "\": " << message;
      }
    }
    return ::testing::AssertionSuccess();
  } catch (const std::exception& e) {
    return ::testing::AssertionFailure() << "expected " << typeid(E).name() << ", got another exception: " << e.what();
  }
  return ::testing::AssertionFailure() << "expected " << typeid(E).name() << ", nothing was thrown";
}

// The tiny model of the tests: d_model 32, 4 heads, ffn 48, 2+2 layers, no
// dropout, `max_len` positions and `vocab_size` tokens on both sides.
inline ModelConfig tiny_model_config(int64_t max_len = 32, int64_t vocab_size = 40) {
  ModelConfig c;
  c.d_model = 32;
  c.n_head = 4;
  c.ffn_hidden = 48;
  c.n_layers = 2;
  c.max_len = max_len;
  c.enc_voc_size = c.dec_voc_size = vocab_size;
  c.drop_prob = 0.0;
  return c;
}

// tiny_model_config(max_len, vocab_size) built after torch::manual_seed(seed)
// and initialised as the reference's training script does; in training mode,
// as built (callers that decode call eval()).
inline model::Transformer tiny_model(uint64_t seed, int64_t max_len = 32, int64_t vocab_size = 40) {
  torch::manual_seed(seed);
  model::Transformer transformer(tiny_model_config(max_len, vocab_size));
  model::init_weights_like_reference(*transformer);
  return transformer;
}

inline std::string source_dir() {
  const char* env = std::getenv("NMT_SOURCE_DIR");
  return env ? env : NMT_SOURCE_DIR;
}

inline std::string binary_dir() {
  const char* env = std::getenv("NMT_BINARY_DIR");
  return env ? env : NMT_BINARY_DIR;
}

// The fixtures committed with the tests (tests/fixtures/README.md says where
// each comes from). They are part of the checkout: a test that misses one
// fails, naming the path, instead of skipping.
inline std::string fixtures_dir() { return source_dir() + "/tests/fixtures"; }

// The reference parity fixture: $NMT_REFERENCE_FIXTURE (another fixture of the
// same layout, other shapes) or tests/fixtures/reference.
inline std::string reference_fixture_dir() {
  const char* env = std::getenv("NMT_REFERENCE_FIXTURE");
  return env ? env : fixtures_dir() + "/reference";
}

// sacreBLEU 2.6.0's scores of hypothesis files against one reference.
inline std::string sacrebleu_fixture_dir() { return fixtures_dir() + "/sacrebleu"; }

struct CommandResult {
  int code = -1;
  std::string output;  // stdout and stderr together
};

// Runs `command` through the shell, capturing stdout and stderr.
inline CommandResult run_command(const std::string& command) {
  CommandResult r;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return r;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), pipe)) > 0) r.output.append(buf, n);
  const int status = ::pclose(pipe);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// `s` as one single-quoted shell word.
inline std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// A file's lines as sacreBLEU reads them: split on '\n'; the final newline
// ends the last line rather than starting an empty one.
inline std::vector<std::string> read_lines_like_sacrebleu(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot open " << path;
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return lines;
}

// A whole file as a string (empty when it cannot be read).
inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// A fresh empty directory under the build tree for one test.
std::string make_temp_dir(const std::string& name);

}  // namespace nmt::test
