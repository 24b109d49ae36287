#include "serve/listen_backlog.h"

#include <dirent.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <cstdlib>
#include <string>

namespace nmt::serve {
namespace {

bool listens_on(int fd, int port) {
  struct stat st {};
  if (fstat(fd, &st) != 0 || !S_ISSOCK(st.st_mode)) return false;
  int accepting = 0;
  socklen_t size = sizeof accepting;
  if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &accepting, &size) != 0 || !accepting) return false;
  sockaddr_storage address{};
  socklen_t length = sizeof address;
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) return false;
  if (address.ss_family == AF_INET) return ntohs(reinterpret_cast<sockaddr_in*>(&address)->sin_port) == port;
  if (address.ss_family == AF_INET6) return ntohs(reinterpret_cast<sockaddr_in6*>(&address)->sin6_port) == port;
  return false;
}

}  // namespace

bool raise_listen_backlog(int port) {
  DIR* fds = opendir("/proc/self/fd");
  if (!fds) return false;
  bool raised = false;
  while (const dirent* entry = readdir(fds)) {
    char* end = nullptr;
    const long fd = std::strtol(entry->d_name, &end, 10);
    if (*end != '\0' || fd == dirfd(fds)) continue;
    if (listens_on(static_cast<int>(fd), port) && ::listen(static_cast<int>(fd), SOMAXCONN) == 0) raised = true;
  }
  closedir(fds);
  return raised;
}

}  // namespace nmt::serve
