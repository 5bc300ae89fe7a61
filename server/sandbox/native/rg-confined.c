// Runs a program (ripgrep) confined by Landlock to reading one folder's tree:
//   rg-confined <root> <program> [args...]
// rg walks by path strings as the project's uid outside the sandbox, so a folder a terminal swaps
// for a link mid-walk led it to any host file that uid may read. Landlock judges each open by the
// inode's place in the mount tree, not by the path string, so no link or rename leads it out of
// <root>. Fails closed: if any step fails (an old kernel, Landlock off), nothing runs (exit 125).
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static int fail(const char *what) {
  fprintf(stderr, "rg-confined: %s: %s\n", what, strerror(errno));
  return 125;
}

static int allow(int ruleset, const char *path, int flags, __u64 access) {
  int fd = open(path, O_PATH | O_CLOEXEC | flags);
  if (fd < 0) return -1;
  struct landlock_path_beneath_attr rule = {.allowed_access = access, .parent_fd = fd};
  long done = syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0);
  close(fd);
  return done < 0 ? -1 : 0;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: rg-confined <root> <program> [args...]\n");
    return 125;
  }
  // Every file-system access ABI 1 knows is handled, so only what a rule grants is allowed:
  // reading inside the root, reading and executing the program itself, nothing written anywhere.
  struct landlock_ruleset_attr attr = {
      .handled_access_fs = LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_READ_FILE |
                           LANDLOCK_ACCESS_FS_READ_DIR | LANDLOCK_ACCESS_FS_REMOVE_DIR |
                           LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR |
                           LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK |
                           LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM,
  };
  int ruleset = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0);
  if (ruleset < 0) return fail("landlock_create_ruleset");
  // The root is the server's folder at a path it chose; O_NOFOLLOW so it is that folder or nothing.
  if (allow(ruleset, argv[1], O_DIRECTORY | O_NOFOLLOW, LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR) < 0)
    return fail(argv[1]);
  if (allow(ruleset, argv[2], 0, LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_EXECUTE) < 0) return fail(argv[2]);
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) return fail("no_new_privs");
  if (syscall(SYS_landlock_restrict_self, ruleset, 0) < 0) return fail("landlock_restrict_self");
  close(ruleset);
  execv(argv[2], argv + 2);
  return fail(argv[2]);
}
