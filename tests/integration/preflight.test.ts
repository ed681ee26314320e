// scripts/preflight.mjs names the command of the distro it runs on (read from os-release(5)) and
// stops without installing anything under --check. Each case gives it another os-release file
// (GATEHOUSE_OS_RELEASE) and a bwrap that is not there (GATEHOUSE_BWRAP).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../support/supervisor';
import { tempDir } from '../support/temp';

let tmp: ReturnType<typeof tempDir>;
beforeAll(() => {
  tmp = tempDir('gatehouse-preflight-');
});
afterAll(() => tmp?.cleanup());

function preflight(osRelease: string, extra: NodeJS.ProcessEnv = {}): { code: number | null; stderr: string; json: { ok: boolean; os: { manager?: string }; missing: Array<{ id: string }> } } {
  const file = path.join(tmp.dir, `os-release-${Math.random().toString(36).slice(2)}`);
  writeFileSync(file, osRelease);
  const r = spawnSync(process.execPath, [path.join(repoRoot, 'scripts', 'preflight.mjs'), 'test', '--check', '--json'], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: tmp.dir, GATEHOUSE_OS_RELEASE: file, GATEHOUSE_BWRAP: path.join(tmp.dir, 'no-bwrap'), GATEHOUSE_CHROMIUM: path.join(tmp.dir, 'no-chromium'), ...extra },
  });
  return { code: r.status, stderr: r.stderr, json: JSON.parse(r.stdout) };
}

describe('preflight', () => {
  const cases: Array<[string, string, RegExp]> = [
    ['Ubuntu', 'ID=ubuntu\nID_LIKE=debian\nPRETTY_NAME="Ubuntu 24.04 LTS"\n', /apt-get update && (sudo )?apt-get install -y bubblewrap chromium$/m],
    ['Fedora', 'ID=fedora\nPRETTY_NAME="Fedora Linux 40"\n', /^\s+(sudo )?dnf install -y bubblewrap chromium$/m],
    ['Rocky', 'ID="rocky"\nID_LIKE="rhel centos fedora"\n', /^\s+(sudo )?dnf install -y bubblewrap chromium$/m],
    ['Arch', 'ID=arch\n', /^\s+(sudo )?pacman -S --needed bubblewrap chromium$/m],
    ['openSUSE', 'ID="opensuse-tumbleweed"\nID_LIKE="opensuse suse"\n', /^\s+(sudo )?zypper install -y bubblewrap chromium$/m],
  ];
  for (const [name, osRelease, command] of cases) {
    it(`names ${name}'s command and exits 1`, () => {
      const r = preflight(osRelease);
      expect(r.code, r.stderr).toBe(1);
      expect(r.json.ok).toBe(false);
      expect(r.json.missing.map((m) => m.id)).toEqual(['bubblewrap', 'chromium']);
      expect(r.stderr).toMatch(command);
    });
  }

  it('a distro it does not know still gets the package names', () => {
    const r = preflight('ID=gentoo\n');
    expect(r.json.os.manager).toBeUndefined();
    expect(r.stderr).toMatch(/install with your package manager: bubblewrap, chromium/);
  });

  it('a bwrap that cannot create namespaces is not "install it": it points at gatehouse doctor', () => {
    const fake = path.join(tmp.dir, 'bwrap-refused');
    writeFileSync(fake, '#!/bin/sh\necho "bwrap: setting up uid map: Permission denied" >&2\nexit 1\n', { mode: 0o755 });
    const r = preflight('ID=ubuntu\nID_LIKE=debian\n', { GATEHOUSE_BWRAP: fake, GATEHOUSE_CHROMIUM: process.execPath });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/cannot create namespaces here \(bwrap: setting up uid map: Permission denied\)/);
    expect(r.stderr).toMatch(/gatehouse doctor --fix/);
    expect(r.stderr).not.toMatch(/install with/);
  });
});
