// See include/cnetlink.h. rtnetlink(7): a process joins multicast groups by
// binding a sockaddr_nl with nl_groups; the kernel then sends RTM_NEW*/DEL*
// messages for every change in those groups.
#include "cnetlink.h"

#include <errno.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int cnetlink_open_route_events(void) {
    int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_ROUTE);
    if (fd < 0) return -errno;
    struct sockaddr_nl address;
    memset(&address, 0, sizeof address);
    address.nl_family = AF_NETLINK;
    address.nl_groups = RTMGRP_LINK | RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR |
                        RTMGRP_IPV4_ROUTE | RTMGRP_IPV6_ROUTE;
    if (bind(fd, (struct sockaddr *)&address, sizeof address) != 0) {
        int error = errno;
        close(fd);
        return -error;
    }
    return fd;
}

long cnetlink_drain(int fd) {
    char buffer[8192];
    long total = 0;
    for (;;) {
        ssize_t count = recv(fd, buffer, sizeof buffer, 0);
        if (count > 0) {
            total += count;
            continue;
        }
        if (count == 0) return total;
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) return total;
        return -errno;
    }
}
