// What the native module's two relays (socket-relay.c, preview-front.c) share: one thread each,
// waiting with epoll on the sockets it carries and on an eventfd that JS writes to wake it, and the
// check that a descriptor JS hands over is a stream socket. Included by each: they are separate
// Node-API modules, so each has its own copy of the thread's state.
#ifndef TANDEM_RELAY_THREAD_H
#define TANDEM_RELAY_THREAD_H

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

// The thread's epoll (its wake eventfd registered with a NULL data pointer) and the eventfd.
static int epoll_fd = -1, wake_fd = -1;
// What starting it failed with (errno), or 0.
static int started_error;

// Starts `run` as the thread (detached, 256 KiB of stack), with its epoll and eventfd made first.
static void start_thread(void *(*run)(void *)) {
  epoll_fd = epoll_create1(EPOLL_CLOEXEC);
  wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  struct epoll_event event = {.events = EPOLLIN, .data.ptr = NULL};
  pthread_t thread;
  pthread_attr_t attributes;
  if (epoll_fd < 0 || wake_fd < 0 || epoll_ctl(epoll_fd, EPOLL_CTL_ADD, wake_fd, &event) != 0) {
    started_error = errno;
    return;
  }
  pthread_attr_init(&attributes);
  pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
  pthread_attr_setstacksize(&attributes, 256 * 1024);
  started_error = pthread_create(&thread, &attributes, run, NULL);
  pthread_attr_destroy(&attributes);
}

// Wakes the thread (its epoll reports the eventfd).
static void wake(void) {
  uint64_t one = 1;
  ssize_t written;
  do written = write(wake_fd, &one, sizeof one);
  while (written < 0 && errno == EINTR);
}

// Empties the eventfd, on the thread, when its epoll reported it.
static void woken(void) {
  uint64_t value;
  while (read(wake_fd, &value, sizeof value) < 0 && errno == EINTR) {
  }
}

static int stream_socket(int fd) {
  int type = 0;
  socklen_t length = sizeof type;
  return getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &length) == 0 && type == SOCK_STREAM;
}

#endif
