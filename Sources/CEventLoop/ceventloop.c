// See include/ceventloop.h.
#define _GNU_SOURCE
#include "ceventloop.h"

#include <errno.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

int ceventloop_create(void) {
    int fd = epoll_create1(EPOLL_CLOEXEC);
    return fd >= 0 ? fd : -errno;
}

static int add(int epoll, int fd, uint32_t events, uint64_t token) {
    struct epoll_event event = { .events = events, .data.u64 = token };
    return epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &event) == 0 ? 0 : -errno;
}

int ceventloop_add_stream(int epoll, int fd, uint64_t token) {
    return add(epoll, fd, EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET, token);
}

int ceventloop_add_listener(int epoll, int fd, uint64_t token) {
    return add(epoll, fd, EPOLLIN | EPOLLEXCLUSIVE, token);
}

int ceventloop_add_input(int epoll, int fd, uint64_t token) {
    return add(epoll, fd, EPOLLIN, token);
}

int ceventloop_remove(int epoll, int fd) {
    struct epoll_event event = { 0 };
    return epoll_ctl(epoll, EPOLL_CTL_DEL, fd, &event) == 0 ? 0 : -errno;
}

int ceventloop_wait(int epoll, struct ceventloop_event *events, int capacity, int timeout_ms) {
    struct epoll_event raw[256];
    if (capacity > 256) capacity = 256;
    int count = epoll_wait(epoll, raw, capacity, timeout_ms);
    if (count < 0) return -errno;
    for (int i = 0; i < count; i++) {
        uint32_t flags = raw[i].events;
        events[i].token = raw[i].data.u64;
        events[i].readable = (flags & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) != 0;
        events[i].writable = (flags & (EPOLLOUT | EPOLLHUP | EPOLLERR)) != 0;
        events[i].hangup = (flags & (EPOLLHUP | EPOLLERR)) != 0;
        events[i].input_ended = (flags & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)) != 0;
    }
    return count;
}

int ceventloop_eventfd(void) {
    int fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    return fd >= 0 ? fd : -errno;
}

void ceventloop_eventfd_signal(int fd) {
    uint64_t one = 1;
    while (write(fd, &one, sizeof one) < 0 && errno == EINTR) {}
}

void ceventloop_eventfd_drain(int fd) {
    uint64_t value;
    while (read(fd, &value, sizeof value) < 0 && errno == EINTR) {}
}

int ceventloop_accept(int fd, void *address, uint32_t *length) {
    socklen_t size = *length;
    int client = accept4(fd, (struct sockaddr *)address, &size, SOCK_NONBLOCK | SOCK_CLOEXEC);
    *length = size;
    return client;
}

uint64_t ceventloop_now_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}
