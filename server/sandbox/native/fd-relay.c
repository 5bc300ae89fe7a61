// What the egress proxy needs and Node has no API for (server/sandbox/fd-relay.ts): passing a
// file descriptor over a Unix socket (SCM_RIGHTS). The sandbox's bridge hands the server the
// listening socket it made inside the sandbox's network namespace, so the server accepts the
// sandbox's proxy connections itself and no relay runs inside the sandbox.
// Node's child_process IPC channel can pass handles, but only to a child spawned with an IPC
// pipe, and terminals are spawned by node-pty; no well-kept npm package does it on Linux.
// (A splice(2) pump for downloads was tried here too: on this kernel it was slower than a plain
// read/write relay, so downloads are relayed by Node, egress-proxy.ts.)
// Linux only, plain C on Node-API (node_api.h), built by node-gyp (scripts/build-native.mjs).
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <node_api.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define CHECK(call)                                                    \
  do {                                                                 \
    if ((call) != napi_ok) {                                           \
      napi_throw_error(env, NULL, "fd-relay: Node-API call failed");   \
      return NULL;                                                     \
    }                                                                  \
  } while (0)

static int32_t int_arg(napi_env env, napi_value value, int32_t fallback) {
  int32_t out = fallback;
  if (napi_get_value_int32(env, value, &out) != napi_ok) return fallback;
  return out;
}

static napi_value error_value(napi_env env, int code, const char *what) {
  char text[160];
  snprintf(text, sizeof text, "%s: %s", what, strerror(code));
  napi_value message, error, code_value;
  napi_create_string_utf8(env, text, NAPI_AUTO_LENGTH, &message);
  napi_create_error(env, NULL, message, &error);
  napi_create_int32(env, code, &code_value);
  napi_set_named_property(env, error, "errno", code_value);
  return error;
}

// sendFd(socketFd, fd): one byte with `fd` attached, on a connected Unix stream socket.
static napi_value send_fd(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  int sock = int_arg(env, argv[0], -1), fd = int_arg(env, argv[1], -1);
  char byte = 'L';
  struct iovec iov = {.iov_base = &byte, .iov_len = 1};
  union {
    struct cmsghdr header;
    char space[CMSG_SPACE(sizeof(int))];
  } control;
  memset(&control, 0, sizeof control);
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.space, .msg_controllen = sizeof control.space};
  struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
  cmsg->cmsg_level = SOL_SOCKET;
  cmsg->cmsg_type = SCM_RIGHTS;
  cmsg->cmsg_len = CMSG_LEN(sizeof(int));
  memcpy(CMSG_DATA(cmsg), &fd, sizeof(int));
  ssize_t sent;
  do sent = sendmsg(sock, &msg, MSG_NOSIGNAL);
  while (sent < 0 && errno == EINTR);
  if (sent < 0) napi_throw(env, error_value(env, errno, "sendmsg"));
  return NULL;
}

// Waiting for the bridge's message happens on a thread of its own (Node must not read the socket,
// or the kernel would drop the descriptor), reported back on the JS thread.
typedef struct job {
  napi_threadsafe_function done;
  int socket;          // a duplicate owned by the job
  int timeout_ms;
  int result_fd;       // the listener
  int error;           // errno, 0 when fine
  const char *failed;  // what failed
} job;

// Only a listening TCP socket is accepted: the sandbox decides what it sends, and anything else
// (a file, a connected socket, a Unix listener) is closed and refused.
static int listening_tcp(int fd) {
  int type = 0, listening = 0;
  socklen_t length = sizeof type;
  if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &length) != 0 || type != SOCK_STREAM) return 0;
  length = sizeof listening;
  if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &length) != 0 || !listening) return 0;
  struct sockaddr_storage address;
  length = sizeof address;
  if (getsockname(fd, (struct sockaddr *)&address, &length) != 0) return 0;
  return address.ss_family == AF_INET || address.ss_family == AF_INET6;
}

static void receive(job *j) {
  struct pollfd ready = {.fd = j->socket, .events = POLLIN};
  int polled;
  do polled = poll(&ready, 1, j->timeout_ms);
  while (polled < 0 && errno == EINTR);
  if (polled <= 0) {
    j->error = polled == 0 ? ETIMEDOUT : errno;
    j->failed = "waiting for the sandbox's listener";
    return;
  }
  char byte;
  struct iovec iov = {.iov_base = &byte, .iov_len = 1};
  // Room for a few descriptors: any beyond the first are closed, not leaked into the server.
  union {
    struct cmsghdr header;
    char space[CMSG_SPACE(4 * sizeof(int))];
  } control;
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.space, .msg_controllen = sizeof control.space};
  ssize_t got;
  do got = recvmsg(j->socket, &msg, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
  while (got < 0 && errno == EINTR);
  int fd = -1;
  for (struct cmsghdr *cmsg = got > 0 ? CMSG_FIRSTHDR(&msg) : NULL; cmsg; cmsg = CMSG_NXTHDR(&msg, cmsg)) {
    if (cmsg->cmsg_level != SOL_SOCKET || cmsg->cmsg_type != SCM_RIGHTS) continue;
    size_t count = (cmsg->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (size_t i = 0; i < count; i++) {
      int passed;
      memcpy(&passed, CMSG_DATA(cmsg) + i * sizeof(int), sizeof(int));
      if (fd < 0) fd = passed;
      else close(passed);
    }
  }
  if (got < 0) {
    j->error = errno;
    j->failed = "recvmsg";
  } else if (fd < 0 || (msg.msg_flags & MSG_CTRUNC)) {
    j->error = EPROTO;
    j->failed = "the sandbox sent no listener";
  } else if (!listening_tcp(fd)) {
    j->error = EPROTO;
    j->failed = "the sandbox sent something other than a listening TCP socket";
  } else {
    j->result_fd = fd;
    fd = -1;
  }
  if (fd >= 0) close(fd);
}

static void *run(void *data) {
  job *j = data;
  receive(j);
  close(j->socket);
  // report() may free the job on the JS thread as soon as it is queued.
  napi_threadsafe_function done = j->done;
  napi_call_threadsafe_function(done, j, napi_tsfn_blocking);
  napi_release_threadsafe_function(done, napi_tsfn_release);
  return NULL;
}

// On the JS thread: callback(error, fd).
static void report(napi_env env, napi_value callback, void *context, void *data) {
  (void)context;
  job *j = data;
  if (env != NULL && callback != NULL) {
    napi_value args[2], global;
    napi_get_undefined(env, &args[0]);
    if (j->error) args[0] = error_value(env, j->error, j->failed);
    napi_create_int32(env, j->result_fd, &args[1]);
    napi_get_global(env, &global);
    napi_call_function(env, global, callback, 2, args, NULL);
  } else if (j->result_fd >= 0) {
    close(j->result_fd);
  }
  free(j);
}

static job *start(napi_env env, napi_value callback, job *j, const char *name) {
  napi_value resource_name;
  if (napi_create_string_utf8(env, name, NAPI_AUTO_LENGTH, &resource_name) != napi_ok ||
      napi_create_threadsafe_function(env, callback, NULL, resource_name, 0, 1, NULL, NULL, NULL, report, &j->done) != napi_ok) {
    return NULL;
  }
  // The server's sockets keep the process alive, not a bridge that never speaks.
  napi_unref_threadsafe_function(env, j->done);
  pthread_t thread;
  pthread_attr_t attributes;
  pthread_attr_init(&attributes);
  pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
  pthread_attr_setstacksize(&attributes, 64 * 1024);
  int failed = pthread_create(&thread, &attributes, run, j);
  pthread_attr_destroy(&attributes);
  if (failed) {
    napi_release_threadsafe_function(j->done, napi_tsfn_abort);
    errno = failed;
    return NULL;
  }
  return j;
}

// receiveListener(socketFd, timeoutMs, callback(error, fd)): waits on the socket (which Node must
// not be reading) for one message carrying a listening TCP socket.
static napi_value receive_listener(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  int sock = fcntl(int_arg(env, argv[0], -1), F_DUPFD_CLOEXEC, 3);
  if (sock < 0) {
    napi_throw(env, error_value(env, errno, "dup"));
    return NULL;
  }
  job *j = calloc(1, sizeof *j);
  if (!j) {
    close(sock);
    napi_throw_error(env, NULL, "fd-relay: out of memory");
    return NULL;
  }
  j->socket = sock;
  j->result_fd = -1;
  j->timeout_ms = int_arg(env, argv[1], 10000);
  if (!start(env, argv[2], j, "fd-relay receive")) {
    close(sock);
    free(j);
    napi_throw(env, error_value(env, errno ? errno : EAGAIN, "starting a thread"));
  }
  return NULL;
}

static napi_value init(napi_env env, napi_value exports) {
  napi_property_descriptor properties[] = {
      {"sendFd", NULL, send_fd, NULL, NULL, NULL, napi_default, NULL},
      {"receiveListener", NULL, receive_listener, NULL, NULL, NULL, napi_default, NULL},
  };
  CHECK(napi_define_properties(env, exports, sizeof properties / sizeof properties[0], properties));
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
