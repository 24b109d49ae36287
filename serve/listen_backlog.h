// Debian's cpp-httplib (0.11) listens with a backlog of 5: a burst of new
// connections beyond that (64 clients starting at once) overflows the
// kernel's accept queue, and some of them fail on their first read. Once the
// server is bound, this finds its listening socket (the one socket of this
// process accepting on that port) and listens again with SOMAXCONN, which
// Linux takes as the new backlog.
#pragma once

namespace nmt::serve {

// Whether a listening socket on `port` was found and its backlog raised.
bool raise_listen_backlog(int port);

}  // namespace nmt::serve
