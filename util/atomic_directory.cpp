#include "util/atomic_directory.h"

#include "util/atomic_file.h"
#include "util/error.h"

namespace nmt {
namespace fs = std::filesystem;

void write_directory_atomically(const std::string& out_dir, const std::string& what,
                                const std::function<void(const fs::path&)>& fill) {
  const fs::path tmp = out_dir + temporary_suffix();
  std::error_code ec;
  fs::remove_all(tmp, ec);
  try {
    fs::create_directories(tmp);
    fill(tmp);
    fs::rename(tmp, out_dir);
  } catch (const fs::filesystem_error& e) {
    fs::remove_all(tmp, ec);
    throw Error("Cannot write " + what + " to " + out_dir + ": " + e.what(), kExitOther);
  } catch (...) {
    fs::remove_all(tmp, ec);
    throw;
  }
}

}  // namespace nmt
