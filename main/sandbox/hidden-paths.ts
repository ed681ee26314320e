// What a sandboxed process must not see even though the root file system is visible read-only:
// the user's credentials and config, browser profiles (cookies are credentials), Gatehouse's own
// data directory (audit store, relay socket, terminal tokens) and the sockets that would hand out
// more than the sandbox grants (a Docker socket is root on the host; the session bus and the
// ssh/gpg agents in $XDG_RUNTIME_DIR sign and unlock on request).
//
// The list is of paths relative to $HOME plus a few absolute ones; each is hidden (an empty
// tmpfs, or /dev/null for a file) only where it exists. docs/sandbox.md prints the same list.
import os from 'node:os';
import path from 'node:path';

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
  '.local/share/keyrings',
  '.local/share/gatehouse',
  '.local/state/gatehouse',
  '.config/gatehouse',
  '.config/gcloud',
  '.config/gh',
  '.config/hub',
  '.config/op',
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

export const HIDDEN_ABSOLUTE_PATHS = ['/var/run/docker.sock', '/run/docker.sock', '/run/podman', '/run/containerd', '/run/snapd.socket', '/run/dbus', '/var/run/dbus'];

export interface HiddenPathContext {
  home: string;
  dataDir: string;
  env: NodeJS.ProcessEnv;
}

/** Every path to hide, absolute, before the existence check (the mount builder checks). */
export function hiddenPaths(ctx: HiddenPathContext): string[] {
  const home = ctx.home || os.homedir();
  const out = new Set<string>();
  // The whole home folder: dotfiles, shell history, other projects' .env files. What a process
  // needs from it comes back as a grant (the workspace, a preset's config folder, the install
  // prefix of the command). The named paths below stay hidden even under a grant of `~`.
  if (path.resolve(home) !== '/') out.add(path.resolve(home));
  for (const rel of HIDDEN_HOME_PATHS) out.add(path.join(home, rel));
  for (const abs of HIDDEN_ABSOLUTE_PATHS) out.add(abs);
  // Wherever the user keeps them: XDG overrides and Gatehouse's own env overrides.
  const { XDG_CONFIG_HOME, XDG_STATE_HOME, XDG_DATA_HOME, XDG_RUNTIME_DIR, GATEHOUSE_PROFILES_DIR, GNUPGHOME, AWS_CONFIG_FILE, AWS_SHARED_CREDENTIALS_FILE, KUBECONFIG } = ctx.env;
  if (XDG_CONFIG_HOME) out.add(path.join(XDG_CONFIG_HOME, 'gatehouse'));
  if (XDG_STATE_HOME) out.add(path.join(XDG_STATE_HOME, 'gatehouse'));
  if (XDG_DATA_HOME) out.add(path.join(XDG_DATA_HOME, 'keyrings'));
  // ssh-agent, gpg-agent, the session bus, the keyring daemon, Wayland/X sockets.
  if (XDG_RUNTIME_DIR) out.add(XDG_RUNTIME_DIR);
  out.add(`/run/user/${typeof process.getuid === 'function' ? process.getuid() : 0}`);
  for (const extra of [GATEHOUSE_PROFILES_DIR, GNUPGHOME, AWS_CONFIG_FILE, AWS_SHARED_CREDENTIALS_FILE, ...(KUBECONFIG ? KUBECONFIG.split(':') : [])]) {
    if (extra) out.add(path.resolve(extra));
  }
  out.add(path.resolve(ctx.dataDir));
  return [...out];
}
