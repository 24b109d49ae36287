#include "tests/test_support.h"

#include <filesystem>

namespace nmt::test {

std::string make_temp_dir(const std::string& name) {
  namespace fs = std::filesystem;
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string leaf = name;
  if (info) leaf += std::string("_") + info->test_suite_name() + "_" + info->name();
  fs::path dir = fs::path(binary_dir()) / "test_tmp" / leaf;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

}  // namespace nmt::test
