// Network choices of a job: which local address Gloo listens on, and a free
// port for a single-machine job's rendezvous.
#pragma once

#include <string>

namespace nmt::distributed {

// The local address this host uses to reach `master_addr` (the source address
// of a route to it), so that peers on other hosts can connect back; a
// hostname that resolves to 127.0.1.1, as Debian's do, would not serve.
// Throws Error naming the address when there is no route.
std::string local_address_towards(const std::string& master_addr, int port);

// The IPv4 address of a network interface, e.g. "eth0"; Error when the
// interface does not exist or has no IPv4 address.
std::string interface_address(const std::string& interface_name);

// A TCP port on the loopback interface that nothing listens on right now.
int free_local_port();

}  // namespace nmt::distributed
