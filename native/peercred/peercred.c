// peer_cred(fd) -> { pid, uid, gid }: who is on the other end of a connected Unix socket, as the
// kernel recorded it at connect() time. Node has no API for this (SO_PEERCRED on Linux;
// getpeereid + LOCAL_PEERPID on macOS). Used by main/approvals/relay-server.ts so a peer's pid
// and uid never come from what the peer says. N-API (not V8): one binary serves Node and
// Electron alike, with no rebuild per ABI.
#if defined(__linux__)
#define _GNU_SOURCE
#endif
#define NAPI_VERSION 8
#include <node_api.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <sys/socket.h>
#if defined(__APPLE__)
#include <sys/un.h>
#include <sys/ucred.h>
#include <unistd.h>
#endif

static napi_value fail(napi_env env, const char *what, int err) {
  char msg[256];
  snprintf(msg, sizeof msg, "%s: %s", what, strerror(err));
  napi_throw_error(env, err == ENOTSOCK ? "ENOTSOCK" : "EPEERCRED", msg);
  return NULL;
}

static napi_value set_int(napi_env env, napi_value obj, const char *name, double v) {
  napi_value n;
  napi_create_double(env, v, &n);
  napi_set_named_property(env, obj, name, n);
  return obj;
}

static napi_value peer_cred(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  int32_t fd = -1;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 1 ||
      napi_get_value_int32(env, argv[0], &fd) != napi_ok || fd < 0) {
    napi_throw_type_error(env, NULL, "peerCred(fd): expected a file descriptor (a non-negative integer)");
    return NULL;
  }
  double pid, uid, gid;
#if defined(__linux__)
  struct ucred cred;
  socklen_t len = sizeof cred;
  if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) return fail(env, "getsockopt(SO_PEERCRED)", errno);
  pid = cred.pid;
  uid = cred.uid;
  gid = cred.gid;
#elif defined(__APPLE__)
  uid_t u;
  gid_t g;
  if (getpeereid(fd, &u, &g) != 0) return fail(env, "getpeereid", errno);
  pid_t p = 0;
  socklen_t len = sizeof p;
  if (getsockopt(fd, SOL_LOCAL, LOCAL_PEERPID, &p, &len) != 0) return fail(env, "getsockopt(LOCAL_PEERPID)", errno);
  pid = p;
  uid = u;
  gid = g;
#else
  napi_throw_error(env, "ENOSYS", "peer credentials are not implemented on this platform");
  return NULL;
#endif
  napi_value out;
  napi_create_object(env, &out);
  set_int(env, out, "pid", pid);
  set_int(env, out, "uid", uid);
  set_int(env, out, "gid", gid);
  return out;
}

static napi_value init(napi_env env, napi_value exports) {
  napi_value fn;
  napi_create_function(env, "peerCred", NAPI_AUTO_LENGTH, peer_cred, NULL, &fn);
  napi_set_named_property(env, exports, "peerCred", fn);
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
