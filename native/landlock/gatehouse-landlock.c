// gatehouse-landlock: the launcher of the `landlock` sandbox kind (docs/sandbox.md "Sandbox kinds";
// main/sandbox/landlock-launch.ts builds its arguments). For machines where bubblewrap cannot
// create user namespaces (Ubuntu >= 23.10: kernel.apparmor_restrict_unprivileged_userns=1), it
// confines itself with what needs no namespace, then execs the command, so no process of ours
// stays between the supervisor and the server:
//   1. setsid() unless it already leads its own session (the supervisor spawns detached, a pty
//      spawner makes a session around Gatehouse's own pty): no shared terminal session;
//   2. PR_SET_PDEATHSIG(SIGKILL), then checks that the parent is still --parent: if Gatehouse died
//      between fork and prctl, the signal would never come (prctl(2), "PR_SET_PDEATHSIG");
//   3. rlimits when asked (--rlimit-as, --rlimit-nproc); then every capability dropped (bounding, ambient, effective, permitted,
//      inheritable): run as root, CAP_SYS_PTRACE would otherwise let it read the host's
//      /proc/PID/environ through Landlock's ptrace rule (measured: readable as root, refused as
//      nobody), and CAP_DAC_OVERRIDE / CAP_SYS_ADMIN reach past file modes and mounts, as
//      bwrap's --cap-drop ALL prevents there;
//   4. PR_SET_NO_NEW_PRIVS (required by both Landlock and seccomp without CAP_SYS_ADMIN);
//   5. a Landlock ruleset: every file right the kernel knows is handled (denied) except beneath
//      the --ro / --rw / --dev paths; TCP bind and connect are handled (ABI >= 4) except
//      connect to the --connect-tcp ports; abstract Unix sockets and signals are scoped to the
//      sandbox (ABI >= 6);
//   6. the seccomp filter read from --seccomp FD (as bwrap's --seccomp), last, so it cannot
//      refuse the syscalls the steps above make;
//   7. execvp.
// Every failure exits 125 with one line naming what was expected and what was found: the
// command never runs with less confinement than it was asked for.
//
// Only libc and kernel headers. The distribution's <linux/landlock.h> may predate the ABI this
// needs (Debian 12's stops at ABI 2), so the structs and constants are defined here, copied from
// the kernel's include/uapi/linux/landlock.h (Linux 6.15, ABI 7); the syscall numbers are the same
// on every architecture (444-446, include/uapi/asm-generic/unistd.h).
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#define __NR_landlock_add_rule 445
#define __NR_landlock_restrict_self 446
#endif

struct gh_ruleset_attr {
  uint64_t handled_access_fs;
  uint64_t handled_access_net; /* ABI 4 */
  uint64_t scoped;             /* ABI 6 */
};
struct gh_path_beneath_attr {
  uint64_t allowed_access;
  int32_t parent_fd;
} __attribute__((packed));
struct gh_net_port_attr {
  uint64_t allowed_access;
  uint64_t port;
};

#define GH_CREATE_RULESET_VERSION (1U << 0)
#define GH_RULE_PATH_BENEATH 1
#define GH_RULE_NET_PORT 2

#define FS_EXECUTE (1ULL << 0)
#define FS_WRITE_FILE (1ULL << 1)
#define FS_READ_FILE (1ULL << 2)
#define FS_READ_DIR (1ULL << 3)
#define FS_REFER (1ULL << 13)     /* ABI 2 */
#define FS_TRUNCATE (1ULL << 14)  /* ABI 3 */
#define FS_IOCTL_DEV (1ULL << 15) /* ABI 5 */
#define FS_ABI1_ALL ((1ULL << 13) - 1)
/* Rights that may be granted on a file that is not a directory (landlock_add_rule: EINVAL else). */
#define FS_FILE_RIGHTS (FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | FS_TRUNCATE | FS_IOCTL_DEV)
#define NET_BIND_TCP (1ULL << 0)    /* ABI 4 */
#define NET_CONNECT_TCP (1ULL << 1) /* ABI 4 */
#define SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0) /* ABI 6 */
#define SCOPE_SIGNAL (1ULL << 1)               /* ABI 6 */

#define MAX_RULES 4096
#define MAX_FILTER_BYTES (BPF_MAXINSNS * sizeof(struct sock_filter))

enum rule_kind { RULE_RO, RULE_RW, RULE_DEV };
struct path_rule {
  enum rule_kind kind;
  const char *path;
};

static void die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("gatehouse-landlock: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  _exit(125);
}

static long parse_number(const char *opt, const char *s, long lo, long hi) {
  char *end = NULL;
  errno = 0;
  long long v = strtoll(s ? s : "", &end, 10);
  if (!s || !*s || *end || errno || v < lo || v > hi) die("%s expects a number from %ld to %ld, found '%s'", opt, lo, hi, s ? s : "(nothing)");
  return (long)v;
}

static int landlock_abi(void) {
  long abi = syscall(__NR_landlock_create_ruleset, NULL, 0, GH_CREATE_RULESET_VERSION);
  return abi < 0 ? -errno : (int)abi;
}

static uint64_t handled_fs(int abi) {
  uint64_t fs = FS_ABI1_ALL;
  if (abi >= 2) fs |= FS_REFER;
  if (abi >= 3) fs |= FS_TRUNCATE;
  if (abi >= 5) fs |= FS_IOCTL_DEV;
  return fs;
}

static uint64_t rights_for(enum rule_kind kind, uint64_t handled) {
  switch (kind) {
    case RULE_RO:
      return FS_EXECUTE | FS_READ_FILE | FS_READ_DIR;
    case RULE_RW:
      // Device ioctls stay refused even in the workspace (TIOCSTI on a terminal opened there).
      return handled & ~FS_IOCTL_DEV;
    case RULE_DEV:
      return (FS_READ_FILE | FS_WRITE_FILE | FS_TRUNCATE) & handled;
  }
  return 0;
}

static void add_path_rule(int ruleset, const struct path_rule *r, uint64_t handled) {
  int fd = open(r->path, O_PATH | O_CLOEXEC);
  if (fd < 0) {
    // Gatehouse checked each path before the spawn; one that vanished since grants nothing.
    if (errno == ENOENT) return;
    die("cannot open '%s' for a rule: %s", r->path, strerror(errno));
  }
  struct stat st;
  if (fstat(fd, &st) != 0) die("cannot stat '%s': %s", r->path, strerror(errno));
  uint64_t allowed = rights_for(r->kind, handled);
  if (!S_ISDIR(st.st_mode)) allowed &= FS_FILE_RIGHTS;
  struct gh_path_beneath_attr attr = {.allowed_access = allowed, .parent_fd = fd};
  if (syscall(__NR_landlock_add_rule, ruleset, GH_RULE_PATH_BENEATH, &attr, 0) != 0) die("landlock_add_rule('%s'): %s", r->path, strerror(errno));
  close(fd);
}

static void add_port_rule(int ruleset, long port) {
  struct gh_net_port_attr attr = {.allowed_access = NET_CONNECT_TCP, .port = (uint64_t)port};
  if (syscall(__NR_landlock_add_rule, ruleset, GH_RULE_NET_PORT, &attr, 0) != 0) die("landlock_add_rule(tcp port %ld): %s", port, strerror(errno));
}

static void apply_landlock(int abi, const struct path_rule *rules, int nrules, const long *ports, int nports) {
  struct gh_ruleset_attr attr = {.handled_access_fs = handled_fs(abi)};
  size_t size = sizeof(uint64_t);
  if (abi >= 4) {
    attr.handled_access_net = NET_BIND_TCP | NET_CONNECT_TCP;
    size = 2 * sizeof(uint64_t);
  }
  if (abi >= 6) {
    attr.scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL;
    size = sizeof attr;
  }
  int ruleset = (int)syscall(__NR_landlock_create_ruleset, &attr, size, 0);
  if (ruleset < 0) die("landlock_create_ruleset (ABI %d): %s", abi, strerror(errno));
  for (int i = 0; i < nrules; i++) add_path_rule(ruleset, &rules[i], attr.handled_access_fs);
  if (nports && abi < 4) die("--connect-tcp needs Landlock ABI 4 (Linux 6.7), found ABI %d", abi);
  for (int i = 0; i < nports; i++) add_port_rule(ruleset, ports[i]);
  if (syscall(__NR_landlock_restrict_self, ruleset, 0) != 0) die("landlock_restrict_self: %s", strerror(errno));
  close(ruleset);
}

static void apply_seccomp(int fd) {
  static unsigned char buf[MAX_FILTER_BYTES + 1];
  size_t len = 0;
  for (;;) {
    ssize_t n = read(fd, buf + len, sizeof buf - len);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) die("cannot read the seccomp filter from fd %d: %s", fd, strerror(errno));
    if (n == 0) break;
    len += (size_t)n;
    if (len > MAX_FILTER_BYTES) die("the seccomp filter on fd %d is longer than %d instructions", fd, BPF_MAXINSNS);
  }
  close(fd);
  if (len == 0 || len % sizeof(struct sock_filter)) die("expected a seccomp filter of whole 8-byte instructions on fd %d, found %zu bytes", fd, len);
  struct sock_fprog prog = {.len = (unsigned short)(len / sizeof(struct sock_filter)), .filter = (struct sock_filter *)buf};
  if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) != 0) die("installing the seccomp filter: %s", strerror(errno));
}

static void set_limit(int resource, const char *name, long value) {
  struct rlimit rl = {.rlim_cur = (rlim_t)value, .rlim_max = (rlim_t)value};
  if (setrlimit(resource, &rl) != 0) die("setrlimit(%s, %ld): %s", name, value, strerror(errno));
}

static void drop_capabilities(void) {
  // Without CAP_SETPCAP (any ordinary user) the bounding set cannot be changed, and needs not be:
  // such a process has no capability to lose, and NO_NEW_PRIVS stops file capabilities at exec.
  for (int cap = 0; cap < 64; cap++) {
    if (prctl(PR_CAPBSET_READ, cap, 0, 0, 0) < 0) break; /* past the kernel's last capability */
    if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno != EPERM) die("PR_CAPBSET_DROP(%d): %s", cap, strerror(errno));
  }
  if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL) die("PR_CAP_AMBIENT_CLEAR_ALL: %s", strerror(errno));
  struct __user_cap_header_struct hdr = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
  struct __user_cap_data_struct data[2];
  memset(data, 0, sizeof data);
  if (syscall(SYS_capset, &hdr, data) != 0) die("capset (dropping every capability): %s", strerror(errno));
  // Checked, not assumed: a capability left here would be a hole the person is not told about.
  if (syscall(SYS_capget, &hdr, data) != 0) die("capget: %s", strerror(errno));
  if (data[0].effective | data[0].permitted | data[1].effective | data[1].permitted) die("expected no capabilities after dropping them, found some still effective or permitted");
}

static void usage(void) {
  die("usage: gatehouse-landlock --abi | [--parent PID] [--ro PATH]... [--rw PATH]... [--dev PATH]... "
      "[--connect-tcp PORT]... [--seccomp FD] [--rlimit-as BYTES] [--rlimit-nproc N] [--min-abi N] -- COMMAND [ARGS...]");
}

int main(int argc, char **argv) {
  static struct path_rule rules[MAX_RULES];
  static long ports[1024];
  int nrules = 0, nports = 0, seccomp_fd = -1, min_abi = 1;
  long parent = 0, rlimit_as = 0, rlimit_nproc = 0;
  int i = 1;
  if (argc == 2 && strcmp(argv[1], "--abi") == 0) {
    // The probe (main/sandbox/availability.ts): the ABI, after a real restriction of this process,
    // so a kernel that reports Landlock but refuses it (a seccomp profile of a container) says so.
    int abi = landlock_abi();
    if (abi < 0) die("landlock_create_ruleset(VERSION): %s", strerror(-abi));
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) die("PR_SET_NO_NEW_PRIVS: %s", strerror(errno));
    apply_landlock(abi, NULL, 0, NULL, 0);
    printf("%d\n", abi);
    return 0;
  }
  for (; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(a, "--") == 0) {
      i++;
      break;
    }
    if (strcmp(a, "--ro") == 0 || strcmp(a, "--rw") == 0 || strcmp(a, "--dev") == 0) {
      if (!v || v[0] != '/') die("%s expects an absolute path, found '%s'", a, v ? v : "(nothing)");
      if (nrules == MAX_RULES) die("more than %d path rules", MAX_RULES);
      rules[nrules].kind = a[3] == 'o' ? RULE_RO : a[3] == 'w' ? RULE_RW : RULE_DEV;
      rules[nrules++].path = v;
    } else if (strcmp(a, "--connect-tcp") == 0) {
      if (nports == (int)(sizeof ports / sizeof ports[0])) die("more than %zu ports", sizeof ports / sizeof ports[0]);
      ports[nports++] = parse_number(a, v, 1, 65535);
    } else if (strcmp(a, "--parent") == 0) {
      parent = parse_number(a, v, 1, INT_MAX);
    } else if (strcmp(a, "--seccomp") == 0) {
      seccomp_fd = (int)parse_number(a, v, 0, INT_MAX);
    } else if (strcmp(a, "--rlimit-as") == 0) {
      rlimit_as = parse_number(a, v, 1, LONG_MAX);
    } else if (strcmp(a, "--rlimit-nproc") == 0) {
      rlimit_nproc = parse_number(a, v, 1, INT_MAX);
    } else if (strcmp(a, "--min-abi") == 0) {
      min_abi = (int)parse_number(a, v, 1, 1000);
    } else {
      fprintf(stderr, "gatehouse-landlock: unknown option '%s'\n", a);
      usage();
    }
    i++;
  }
  if (i >= argc) usage();

  int abi = landlock_abi();
  if (abi < 0) die("this kernel has no Landlock (landlock_create_ruleset: %s)", strerror(-abi));
  if (abi < min_abi) die("expected Landlock ABI %d or later (what Gatehouse probed), found ABI %d", min_abi, abi);

  // A session leader already has its own session (and, under a pty, Gatehouse's own terminal);
  // setsid() would fail with EPERM there.
  if (getsid(0) != getpid() && setsid() < 0) die("setsid: %s", strerror(errno));
  if (parent) {
    if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0) die("PR_SET_PDEATHSIG: %s", strerror(errno));
    // The parent may have died before the prctl: then we were reparented and no signal will come.
    if (getppid() != (pid_t)parent) die("expected parent pid %ld, found %d: Gatehouse is gone", parent, (int)getppid());
  }
  if (rlimit_as) set_limit(RLIMIT_AS, "RLIMIT_AS", rlimit_as);
  if (rlimit_nproc) set_limit(RLIMIT_NPROC, "RLIMIT_NPROC", rlimit_nproc);
  drop_capabilities();
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) die("PR_SET_NO_NEW_PRIVS: %s", strerror(errno));
  apply_landlock(abi, rules, nrules, ports, nports);
  if (seccomp_fd >= 0) apply_seccomp(seccomp_fd);
  execvp(argv[i], &argv[i]);
  die("cannot run '%s': %s", argv[i], strerror(errno));
  return 125;
}
