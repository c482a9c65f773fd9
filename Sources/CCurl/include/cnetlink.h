// Route-change events from the kernel (rtnetlink), for waiting on a network
// path without polling. Lives in CCurl because it is the network layer's only
// C target; it has nothing to do with libcurl.
#ifndef CNETLINK_H
#define CNETLINK_H

/// Opens a non-blocking NETLINK_ROUTE socket subscribed to link, IPv4/IPv6
/// address and IPv4/IPv6 route changes. Returns the descriptor, or -errno.
int cnetlink_open_route_events(void);

/// Reads and discards every queued message. Returns the number of messages'
/// bytes read (0 when none), or -errno; -ENOBUFS means events were lost,
/// which callers treat as "something changed".
long cnetlink_drain(int fd);

#endif
