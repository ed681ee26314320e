// What a sandboxed process must not see even though the root file system is visible read-only:
// the user's credentials and config, browser profiles (cookies are credentials), Gatehouse's own
// data directory (audit store, relay socket, terminal tokens) and the Unix sockets that would hand
// out more than the sandbox grants. A network namespace cuts IP and abstract sockets only: a
// socket *file* on a visible path still answers a `network: none` process (a Docker or LXD socket
// is root on the host, systemd-resolved and nscd resolve any name, the session bus and the
// ssh/gpg agents sign and unlock on request).
//
// The list is of paths relative to each home plus absolute ones; each is hidden (an empty
// tmpfs, or /dev/null for a file) only where it exists. docs/sandbox.md prints the same list;
// the seatbelt profile (macOS) gets it through the same mount plan.
import os from 'node:os';
import path from 'node:path';
import type { Stats } from 'node:fs';
import type { SandboxNetwork } from './types';

export const HIDDEN_HOME_PATHS = [
  '.ssh',
  '.gnupg',
  '.aws',
  '.azure',
  '.kube',
  '.docker',
  '.netrc',
  '.npmrc',
  '.pypirc',
  '.git-credentials',
  '.password-store',
  '.pgpass',
  '.my.cnf',
  '.local/share/keyrings',
  '.local/share/gatehouse',
  '.local/state/gatehouse',
  '.config/gatehouse',
  '.config/gcloud',
  '.config/gh',
  '.config/hub',
  '.config/op',
  // LXD/Incus client certificates: the remote they are trusted by gives root in its containers.
  '.config/lxc',
  '.config/incus',
  // Docker sockets of VM-based engines (Colima, Lima, Rancher Desktop) live in the home.
  '.colima',
  '.lima',
  '.rd',
  '.config/Gatehouse',
  '.config/google-chrome',
  '.config/chromium',
  '.config/BraveSoftware',
  '.config/microsoft-edge',
  '.config/vivaldi',
  '.mozilla',
  '.thunderbird',
  '.var/app',
  'snap/firefox',
  // Agent CLIs' logins: hidden unless the agent's own preset grants its folder back.
  '.claude',
  '.claude.json',
  '.codex',
  '.gemini',
  // macOS (the seatbelt profile uses the same list).
  'Library/Keychains',
  'Library/Cookies',
  'Library/Application Support/Google/Chrome',
  'Library/Application Support/Firefox',
  'Library/Application Support/Gatehouse',
  'Library/Safari',
];

// /run (and /var/run, a symlink to it on Debian/Ubuntu, a real folder on some older systems) is
// where daemons put their sockets, so it is hidden whole: an allowlist, not a deny list. What comes
// back is runAllowlist() below. The names under it are hidden as well so that a profile granting
// `read: [/run]` still does not expose them; but there they are hidden one by one, and a socket
// *file* hidden by a bind mount comes back when its daemon restarts (the kernel detaches a mount
// whose point is unlinked in another namespace; measured with bwrap on Linux 6.18: /dev/null over
// a socket, server restarted, the sandbox connected). Grant the folder you need, not /run.
export const RUN_DIRS = ['/run', '/var/run'];
export const HIDDEN_RUN_NAMES = [
  // Container engines: each is root on the host.
  'docker.sock',
  'docker',
  'podman',
  'containerd',
  'crio',
  'k3s',
  'snapd.socket',
  'snapd-snap.socket',
  // libvirt (qemu monitors, the root daemon), tailscaled's LocalAPI (changes the host's network).
  'libvirt',
  'tailscale',
  // Name services that answer any query from a netns without a network (a DNS side channel):
  // systemd-resolved's varlink socket, nscd, avahi; and the rest of systemd (journal, userdb).
  'systemd',
  'nscd',
  'avahi-daemon',
  // Databases: peer authentication lets a local connection in as the local user.
  'mysqld',
  'postgresql',
  // The system bus and every user's runtime folder (ssh/gpg agents, session bus, Wayland).
  'dbus',
  'user',
];

// Sockets and the state around them that live under /var, visible on a read-only root. Folders,
// not socket files, for the restart reason above.
export const HIDDEN_VAR_PATHS = [
  '/var/lib/mysql', // mysql.sock where MariaDB/MySQL keep it in the data dir (Fedora, RHEL, Arch)
  '/var/lib/lxd', // unix.socket of a deb-installed LXD: root-equivalent
  '/var/snap/lxd/common/lxd', // the same for the snap
  '/var/lib/incus', // unix.socket of Incus: root-equivalent
  '/var/lib/libvirt', // qemu monitor sockets, disk images
  '/var/lib/tailscale', // tailscaled's node key (and its socket on some distros)
  '/var/lib/docker', // container file systems, plugin sockets
  '/var/lib/containerd',
  '/var/lib/containers', // rootful Podman's storage
  '/var/lib/kubelet', // pod secrets, the kubelet's pod-resources and device-plugin sockets
  '/var/lib/rancher', // k3s/RKE2 state and tokens
  '/var/snap/docker', // the Docker snap's data and sockets
  '/var/snap/microk8s', // microk8s' containerd socket and kubeconfig
];

export const HIDDEN_ABSOLUTE_PATHS = [...RUN_DIRS, ...RUN_DIRS.flatMap((d) => HIDDEN_RUN_NAMES.map((n) => `${d}/${n}`)), ...HIDDEN_VAR_PATHS];

export interface HiddenPathContext {
  home: string;
  dataDir: string;
  env: NodeJS.ProcessEnv;
  /** The account's home from the password database; for tests (default: os.userInfo()). */
  passwdHome?: string;
}

/**
 * getpwuid's home. os.homedir() is $HOME when it is set, so a Gatehouse started with HOME
 * elsewhere (a test, `sudo -E`, a service) would otherwise leave the account's real home, with its
 * .ssh and .npmrc, listable. Throws for a uid without a passwd entry: nothing to hide then.
 */
export function passwdHome(): string | undefined {
  try {
    return os.userInfo().homedir || undefined;
  } catch {
    return undefined;
  }
}

/** Every path to hide, absolute, before the existence check (the mount builder checks). */
export function hiddenPaths(ctx: HiddenPathContext): string[] {
  const homes = new Set([path.resolve(ctx.home || os.homedir())]);
  const account = ctx.passwdHome ?? passwdHome();
  if (account) homes.add(path.resolve(account));
  const out = new Set<string>();
  for (const home of homes) {
    // The whole home folder: dotfiles, shell history, other projects' .env files. What a process
    // needs from it comes back as a grant (the workspace, a preset's config folder, the install
    // prefix of the command). The named paths below stay hidden even under a grant of `~`. Root's
    // home (/root) is a home like any other.
    if (home !== '/') out.add(home);
    for (const rel of HIDDEN_HOME_PATHS) out.add(path.join(home, rel));
  }
  for (const abs of HIDDEN_ABSOLUTE_PATHS) out.add(abs);
  // Wherever the user keeps them: XDG overrides and Gatehouse's own env overrides.
  const { XDG_CONFIG_HOME, XDG_STATE_HOME, XDG_DATA_HOME, XDG_RUNTIME_DIR, GATEHOUSE_PROFILES_DIR, GNUPGHOME, AWS_CONFIG_FILE, AWS_SHARED_CREDENTIALS_FILE, KUBECONFIG } = ctx.env;
  if (XDG_CONFIG_HOME) out.add(path.join(XDG_CONFIG_HOME, 'gatehouse'));
  if (XDG_STATE_HOME) out.add(path.join(XDG_STATE_HOME, 'gatehouse'));
  if (XDG_DATA_HOME) out.add(path.join(XDG_DATA_HOME, 'keyrings'));
  // ssh-agent, gpg-agent, the session bus, the keyring daemon, Wayland/X sockets.
  if (XDG_RUNTIME_DIR) out.add(XDG_RUNTIME_DIR);
  for (const extra of [GATEHOUSE_PROFILES_DIR, GNUPGHOME, AWS_CONFIG_FILE, AWS_SHARED_CREDENTIALS_FILE, ...(KUBECONFIG ? KUBECONFIG.split(':') : [])]) {
    if (extra) out.add(path.resolve(extra));
  }
  out.add(path.resolve(ctx.dataDir));
  return [...out];
}

/**
 * What comes back inside the hidden /run, each entry for a measured reason. Measured with
 * `strace -f -e trace=%file,connect` on this repo's CI image (Debian, Node 20): node (startup,
 * dns.lookup, os.userInfo, a child process), python3 (getaddrinfo, pwd, grp), git status, bash -l,
 * npx and the three reference servers open nothing under /run except glibc's optional NSS
 * lookups, which fall back to /etc when absent: the nscd socket and /run/systemd/userdb (so a user
 * that exists only in systemd-homed/userdb has no passwd entry inside; docs/sandbox.md "Limits").
 *
 * - /etc/resolv.conf's target, when it lies under /run (Ubuntu: systemd-resolved's
 *   stub-resolv.conf; NetworkManager, resolvconf): read by Node's c-ares when the `dns` module
 *   loads (strace: `node -e 'require("dns")'` opens it, `node -e 1` does not) and by glibc at the
 *   first getaddrinfo. Only where the sandbox has a network at all. Nothing inside reaches a name server either way
 *   (the namespace has only lo; the egress proxy resolves on the host), so this keeps
 *   resolver-reading tools (search domains, options) as on the host; a regular file only, never
 *   a socket or a folder.
 */
export function runAllowlist(network: SandboxNetwork['kind'], fs: { stat: (p: string) => Stats | undefined; realpath: (p: string) => string }): string[] {
  if (network === 'none') return [];
  const runRoots = [...new Set(RUN_DIRS.map((d) => fs.realpath(d)))];
  const target = fs.realpath('/etc/resolv.conf');
  const under = runRoots.some((r) => target.startsWith(`${r}/`));
  return under && fs.stat(target)?.isFile() ? [target] : [];
}
