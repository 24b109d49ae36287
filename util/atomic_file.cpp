#include "util/atomic_file.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "util/error.h"

namespace nmt {
namespace {

std::string errno_text() { return std::strerror(errno); }

// Why a write failed, with what to do when the disk (or a file size limit) is
// the reason: the file it would have replaced is untouched either way.
std::string write_failure(int err) {
  std::string why = std::strerror(err);
  if (err == ENOSPC || err == EDQUOT || err == EFBIG) {
    why += "; nothing was replaced, older files are intact: free some space (or raise the file size limit) "
           "and run again";
  }
  return why;
}

void fsync_directory_of(const std::string& path) {
  auto slash = path.find_last_of('/');
  std::string dir = slash == std::string::npos ? "." : path.substr(0, slash == 0 ? 1 : slash);
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

}  // namespace

void write_file_atomically(const std::string& path, const std::string& bytes) {
  write_file_atomically(path, std::vector<std::string_view>{bytes});
}

void write_file_atomically(const std::string& path, const std::vector<std::string_view>& parts) {
  std::string tmp = path + ".tmp." + std::to_string(::getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw Error("Cannot create " + tmp + ": " + errno_text() + ".", kExitOther);
  for (const std::string_view bytes : parts) {
    size_t done = 0;
    while (done < bytes.size()) {
      ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        std::string why = write_failure(n < 0 ? errno : ENOSPC);
        ::close(fd);
        ::unlink(tmp.c_str());
        throw Error("Cannot write " + path + ": " + why + ".", kExitOther);
      }
      done += static_cast<size_t>(n);
    }
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    std::string why = write_failure(errno);
    ::unlink(tmp.c_str());
    throw Error("Cannot flush " + path + ": " + why + ".", kExitOther);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    std::string why = errno_text();
    ::unlink(tmp.c_str());
    throw Error("Cannot rename " + tmp + " to " + path + ": " + why + ".", kExitOther);
  }
  fsync_directory_of(path);
}

std::string read_file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DataError("Cannot read " + path + ": " + errno_text() + ".");
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw DataError("Error while reading " + path + ".");
  return ss.str();
}

namespace {

std::string host_name() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0 || name[0] == '\0') return "host";
  std::string s(name);
  for (char& c : s) {
    if (c == '-' || c == '/') c = '_';  // the suffix splits at '-'
  }
  return s;
}

}  // namespace

std::string temporary_suffix() {
  static const std::string suffix = ".tmp-" + host_name() + "-" + std::to_string(::getpid());
  return suffix;
}

bool stale_temporary(const std::string& name, const std::string& target) {
  const std::string prefix = target + ".tmp-" + host_name() + "-";
  if (name.rfind(prefix, 0) != 0) return false;
  const std::string rest = name.substr(prefix.size());
  const size_t digits = rest.find_first_not_of("0123456789");
  if (digits == 0) return false;
  const long pid = std::strtol(rest.substr(0, digits).c_str(), nullptr, 10);
  if (pid == ::getpid()) return false;
  return ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
}

}  // namespace nmt
