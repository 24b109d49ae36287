#include "distributed/network.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "util/error.h"

namespace nmt::distributed {
namespace {

struct Socket {
  int fd;
  explicit Socket(int f) : fd(f) {}
  ~Socket() {
    if (fd >= 0) ::close(fd);
  }
};

std::string address_text(const sockaddr* address) {
  char text[INET6_ADDRSTRLEN] = {};
  if (address->sa_family == AF_INET) {
    ::inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(address)->sin_addr, text, sizeof(text));
  } else {
    ::inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(address)->sin6_addr, text, sizeof(text));
  }
  return text;
}

}  // namespace

std::string local_address_towards(const std::string& master_addr, int port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_DGRAM;
  addrinfo* found = nullptr;
  const std::string service = std::to_string(port);
  if (const int rc = ::getaddrinfo(master_addr.c_str(), service.c_str(), &hints, &found); rc != 0) {
    throw Error("Cannot resolve the master address " + master_addr + ": " + ::gai_strerror(rc) + ".", kExitOther);
  }
  std::unique_ptr<addrinfo, decltype(&::freeaddrinfo)> guard(found, ::freeaddrinfo);
  // Connecting a UDP socket sends nothing; it only picks the route and with
  // it the source address.
  Socket s(::socket(found->ai_family, SOCK_DGRAM, 0));
  if (s.fd < 0 || ::connect(s.fd, found->ai_addr, found->ai_addrlen) != 0) {
    throw Error("No route from this host to the master address " + master_addr + ": " + std::strerror(errno) + ".",
                kExitOther);
  }
  sockaddr_storage local{};
  socklen_t length = sizeof(local);
  ::getsockname(s.fd, reinterpret_cast<sockaddr*>(&local), &length);
  return address_text(reinterpret_cast<const sockaddr*>(&local));
}

std::string interface_address(const std::string& interface_name) {
  ifaddrs* list = nullptr;
  if (::getifaddrs(&list) != 0) {
    throw Error(std::string("Cannot list network interfaces: ") + std::strerror(errno) + ".", kExitOther);
  }
  std::unique_ptr<ifaddrs, decltype(&::freeifaddrs)> guard(list, ::freeifaddrs);
  bool exists = false;
  for (const ifaddrs* i = list; i; i = i->ifa_next) {
    if (interface_name != i->ifa_name) continue;
    exists = true;
    if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET) return address_text(i->ifa_addr);
  }
  throw UsageError("The network interface " + interface_name +
                   (exists ? " has no IPv4 address." : " does not exist on this host (see `ip address`).") +
                   " Choose another with --network-interface or GLOO_SOCKET_IFNAME.");
}

int free_local_port() {
  Socket s(::socket(AF_INET, SOCK_STREAM, 0));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  socklen_t length = sizeof(address);
  if (s.fd < 0 || ::bind(s.fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
      ::getsockname(s.fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    throw Error(std::string("Cannot find a free local port: ") + std::strerror(errno) + ".", kExitOther);
  }
  return ntohs(address.sin_port);
}

}  // namespace nmt::distributed
