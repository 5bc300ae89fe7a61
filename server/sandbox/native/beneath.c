// What the workspace needs and Node has no API for (server/workspace/beneath.ts): openat2(2),
// which opens a path relative to an open folder with the kernel keeping the whole resolution
// beneath that folder. The server runs as root and a project's members can swap any folder of the
// workspace for a symbolic link at any moment, so a path checked and then used again as a string
// can lead anywhere on the host; a descriptor opened this way cannot.
// Synchronous on purpose: opening never waits on the file itself (O_PATH, or O_NONBLOCK for the
// callers that open data), only on a path walk, like fs.existsSync.
// Linux >= 5.6 only, plain C on Node-API (node_api.h), built by node-gyp (scripts/build-native.mjs).
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <node_api.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define CHECK(call)                                                  \
  do {                                                               \
    if ((call) != napi_ok) {                                         \
      napi_throw_error(env, NULL, "beneath: Node-API call failed");  \
      return NULL;                                                   \
    }                                                                \
  } while (0)

// Resolution that raced a rename or mount elsewhere in the tree fails with EAGAIN; a few retries.
#define EAGAIN_RETRIES 16

static void throw_errno(napi_env env, int code, const char *what) {
  char text[160];
  snprintf(text, sizeof text, "%s: %s", what, strerror(code));
  napi_value message, error, code_value;
  napi_create_string_utf8(env, text, NAPI_AUTO_LENGTH, &message);
  napi_create_error(env, NULL, message, &error);
  napi_create_int32(env, code, &code_value);
  napi_set_named_property(env, error, "errno", code_value);
  napi_throw(env, error);
}

// openat2(dirFd, path, flags, mode, resolve) -> fd. O_CLOEXEC is always added; `mode` only counts
// with O_CREAT (openat2 refuses a mode otherwise).
static napi_value open_beneath(napi_env env, napi_callback_info info) {
  size_t argc = 5;
  napi_value argv[5];
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 5) {
    napi_throw_type_error(env, NULL, "beneath.open(dirFd, path, flags, mode, resolve)");
    return NULL;
  }
  int32_t dir_fd;
  uint32_t flags, mode, resolve;
  size_t length;
  CHECK(napi_get_value_int32(env, argv[0], &dir_fd));
  CHECK(napi_get_value_string_utf8(env, argv[1], NULL, 0, &length));
  CHECK(napi_get_value_uint32(env, argv[2], &flags));
  CHECK(napi_get_value_uint32(env, argv[3], &mode));
  CHECK(napi_get_value_uint32(env, argv[4], &resolve));
  char *path = malloc(length + 1);
  if (!path) {
    napi_throw_error(env, NULL, "beneath: out of memory");
    return NULL;
  }
  CHECK(napi_get_value_string_utf8(env, argv[1], path, length + 1, &length));
  if (strlen(path) != length) {  // a NUL inside: the kernel would see a shorter path
    free(path);
    throw_errno(env, EINVAL, "openat2");
    return NULL;
  }
  struct open_how how;
  memset(&how, 0, sizeof how);
  how.flags = (uint64_t)flags | O_CLOEXEC;
  how.mode = (flags & O_CREAT) ? (mode & 07777) : 0;
  how.resolve = resolve;
  long fd;
  int tries = 0;
  do fd = syscall(SYS_openat2, dir_fd, path, &how, sizeof how);
  while (fd < 0 && (errno == EINTR || (errno == EAGAIN && ++tries < EAGAIN_RETRIES)));
  int saved = errno;
  free(path);
  if (fd < 0) {
    throw_errno(env, saved, "openat2");
    return NULL;
  }
  napi_value result;
  CHECK(napi_create_int32(env, (int32_t)fd, &result));
  return result;
}

static napi_value init(napi_env env, napi_value exports) {
  napi_value beneath, in_root, no_magiclinks, no_symlinks, no_xdev, o_path;
  CHECK(napi_create_uint32(env, O_PATH, &o_path));
  CHECK(napi_create_uint32(env, RESOLVE_BENEATH, &beneath));
  CHECK(napi_create_uint32(env, RESOLVE_IN_ROOT, &in_root));
  CHECK(napi_create_uint32(env, RESOLVE_NO_MAGICLINKS, &no_magiclinks));
  CHECK(napi_create_uint32(env, RESOLVE_NO_SYMLINKS, &no_symlinks));
  CHECK(napi_create_uint32(env, RESOLVE_NO_XDEV, &no_xdev));
  napi_property_descriptor properties[] = {
      {"open", NULL, open_beneath, NULL, NULL, NULL, napi_default, NULL},
      {"O_PATH", NULL, NULL, NULL, NULL, o_path, napi_enumerable, NULL},
      {"RESOLVE_BENEATH", NULL, NULL, NULL, NULL, beneath, napi_enumerable, NULL},
      {"RESOLVE_IN_ROOT", NULL, NULL, NULL, NULL, in_root, napi_enumerable, NULL},
      {"RESOLVE_NO_MAGICLINKS", NULL, NULL, NULL, NULL, no_magiclinks, napi_enumerable, NULL},
      {"RESOLVE_NO_SYMLINKS", NULL, NULL, NULL, NULL, no_symlinks, napi_enumerable, NULL},
      {"RESOLVE_NO_XDEV", NULL, NULL, NULL, NULL, no_xdev, napi_enumerable, NULL},
  };
  CHECK(napi_define_properties(env, exports, sizeof properties / sizeof properties[0], properties));
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
