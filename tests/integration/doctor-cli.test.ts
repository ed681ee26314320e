// `gatehouse doctor` as a person runs it: the real checks on this machine (real bwrap, the real
// native modules), and on a machine made hostile through the variables the checks read: a bwrap
// that is missing, one that is refused user namespaces the way Ubuntu's AppArmor refuses them
// ("setting up uid map: Permission denied"), and sysctls that say so (GATEHOUSE_SYSCTL_DIR).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DoctorReportSchema, type DoctorReport } from '../../common/host-api-doctor';
import { buildTestBundle, type TestBundle } from '../support/build';
import { tempDir } from '../support/temp';

let bundle: TestBundle;
let tmp: ReturnType<typeof tempDir>;
let refusedBwrap: string;
/** A landlock launcher that is not there: the machine then has no sandbox kind at all. */
let noLandlock: string;
beforeAll(() => {
  bundle = buildTestBundle({ cli: 'main/cli/index.ts' }, 'doctor-test');
  tmp = tempDir('gatehouse-doctor-');
  refusedBwrap = path.join(tmp.dir, 'bwrap-refused');
  noLandlock = path.join(tmp.dir, 'no-landlock-launcher');
  // What bwrap prints under kernel.apparmor_restrict_unprivileged_userns=1 (Ubuntu 24.04).
  writeFileSync(refusedBwrap, '#!/bin/sh\n[ "$1" = --version ] && { echo "bubblewrap 0.9.0"; exit 0; }\necho "bwrap: setting up uid map: Permission denied" >&2\nexit 1\n', { mode: 0o755 });
}, 60_000);
afterAll(() => {
  bundle?.cleanup();
  tmp?.cleanup();
});

function doctor(args: string[], extra: NodeJS.ProcessEnv = {}): { code: number | null; stdout: string; stderr: string } {
  const env = { ...process.env, HOME: tmp.dir, GATEHOUSE_DATA_DIR: path.join(tmp.dir, 'data'), GATEHOUSE_SECRET_STORE: 'file', GATEHOUSE_BWRAP: undefined, ...extra };
  const r = spawnSync(process.execPath, [bundle.entry('cli'), 'doctor', ...args], { env, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function json(extra: NodeJS.ProcessEnv = {}): { code: number | null; report: DoctorReport; raw: Record<string, unknown> } {
  const r = doctor(['--json'], extra);
  const raw = JSON.parse(r.stdout) as Record<string, unknown>;
  return { code: r.code, report: DoctorReportSchema.parse(raw), raw };
}

const check = (report: DoctorReport, id: string) => report.checks.find((c) => c.id === id);

describe('gatehouse doctor', () => {
  it('--json: the documented keys and check ids, exit code 0 exactly when no check is an error', () => {
    const { code, report, raw } = json();
    expect(Object.keys(raw).sort()).toEqual(['checks', 'ok', 'os', 'platform', 'schema']);
    expect(raw.schema).toBe(1);
    for (const c of raw.checks as Array<Record<string, unknown>>) {
      expect(Object.keys(c).filter((k) => !['id', 'title', 'status', 'detail', 'fix'].includes(k))).toEqual([]);
    }
    if (process.platform === 'linux') {
      expect(report.checks.map((c) => c.id)).toEqual([
        'sandbox.bwrap', 'sandbox.userns', 'sandbox.apparmor', 'sandbox.kind', 'sandbox.landlock', 'sandbox.seccomp',
        'secrets.store', 'app.electron', 'native.better-sqlite3', 'native.node-pty', 'tests.chromium', 'data.dir',
      ]);
      // This machine runs the sandbox tests: the real probe succeeds.
      expect(check(report, 'sandbox.userns')?.status).toBe('ok');
    }
    expect(check(report, 'native.better-sqlite3')?.status).toBe('ok');
    expect(check(report, 'secrets.store')).toMatchObject({ status: 'warning', fix: expect.stringMatching(/GATEHOUSE_SECRET_STORE/) });
    expect(code).toBe(report.ok ? 0 : 1);
  });

  it.runIf(process.platform === 'linux')('a bwrap refused user namespaces, no landlock either: names the AppArmor restriction and the fix, exit 1', () => {
    const { code, report } = json({ GATEHOUSE_BWRAP: refusedBwrap, GATEHOUSE_LANDLOCK: noLandlock });
    expect(code).toBe(1);
    expect(report.ok).toBe(false);
    const userns = check(report, 'sandbox.userns')!;
    expect(userns.status).toBe('error');
    expect(userns.detail).toMatch(/setting up uid map: Permission denied/);
    expect(userns.detail).toMatch(/kernel\.apparmor_restrict_unprivileged_userns/);
    expect(userns.fix).toMatch(/gatehouse doctor --fix/);
    expect(userns.fix).toContain(`allows user namespaces for ${refusedBwrap} only (/etc/apparmor.d/gatehouse-bwrap`);
    expect(userns.fix).toMatch(/sysctl -w kernel\.apparmor_restrict_unprivileged_userns=0/);
    // The text form says the same, with the fix under it.
    const text = doctor([], { GATEHOUSE_BWRAP: refusedBwrap, GATEHOUSE_LANDLOCK: noLandlock });
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(/FAIL {2}user namespaces: .*kernel\.apparmor_restrict_unprivileged_userns/);
    expect(text.stdout).toMatch(/\n {8}fix: `gatehouse doctor --fix`/);
  });

  it.runIf(process.platform === 'linux')('a bwrap refused user namespaces where the landlock kind works: the same restriction and fix, as warnings, and says servers get the reduced sandbox', () => {
    const { report } = json({ GATEHOUSE_BWRAP: refusedBwrap });
    const userns = check(report, 'sandbox.userns')!;
    expect(userns.status).toBe('warning');
    expect(userns.detail).toMatch(/kernel\.apparmor_restrict_unprivileged_userns/);
    expect(userns.fix).toMatch(/gatehouse doctor --fix/);
    expect(check(report, 'sandbox.kind')).toMatchObject({ status: 'warning', detail: expect.stringMatching(/^landlock: reduced/) });
    expect(report.checks.filter((c) => c.id.startsWith('sandbox.') && c.status === 'error')).toEqual([]);
  });

  it.runIf(process.platform === 'linux')('reads the sysctls that decide it: the AppArmor restriction on, and user namespaces off', () => {
    const sys = path.join(tmp.dir, 'sys');
    mkdirSync(path.join(sys, 'kernel'), { recursive: true });
    writeFileSync(path.join(sys, 'kernel', 'apparmor_restrict_unprivileged_userns'), '1\n');
    const restricted = json({ GATEHOUSE_BWRAP: refusedBwrap, GATEHOUSE_LANDLOCK: noLandlock, GATEHOUSE_SYSCTL_DIR: sys }).report;
    expect(check(restricted, 'sandbox.userns')!.detail).toMatch(/AppArmor restricts unprivileged user namespaces \(kernel\.apparmor_restrict_unprivileged_userns = 1\)/);
    expect(check(restricted, 'sandbox.apparmor')).toMatchObject({ status: 'error', fix: expect.stringMatching(/gatehouse doctor --fix/) });
    mkdirSync(path.join(sys, 'user'));
    writeFileSync(path.join(sys, 'user', 'max_user_namespaces'), '0\n');
    const off = json({ GATEHOUSE_BWRAP: refusedBwrap, GATEHOUSE_LANDLOCK: noLandlock, GATEHOUSE_SYSCTL_DIR: sys }).report;
    expect(check(off, 'sandbox.userns')).toMatchObject({ detail: expect.stringMatching(/user\.max_user_namespaces = 0/), fix: expect.stringMatching(/sysctl -w user\.max_user_namespaces=/) });
  });

  it.runIf(process.platform === 'linux')('a missing bwrap: the install command for this distro', () => {
    const osRelease = path.join(tmp.dir, 'os-release-fedora');
    writeFileSync(osRelease, 'ID=fedora\nPRETTY_NAME="Fedora Linux 40"\n');
    const { code, report } = json({ GATEHOUSE_BWRAP: path.join(tmp.dir, 'nothing'), GATEHOUSE_LANDLOCK: noLandlock, GATEHOUSE_OS_RELEASE: osRelease });
    expect(code).toBe(1);
    expect(report.os).toBe('Fedora Linux 40');
    expect(check(report, 'sandbox.bwrap')).toMatchObject({ status: 'error', fix: expect.stringMatching(/dnf install -y bubblewrap$/) });
    expect(check(report, 'sandbox.userns')).toBeUndefined();
  });

  it.runIf(process.platform === 'linux')('--fix prints the AppArmor profile for this bwrap only, and how to install it', () => {
    const r = doctor(['--fix'], { GATEHOUSE_BWRAP: refusedBwrap });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^# \/etc\/apparmor\.d\/gatehouse-bwrap\n/);
    expect(r.stdout).toContain(`profile gatehouse-bwrap ${refusedBwrap} flags=(unconfined) {`);
    expect(r.stdout).toMatch(/^\s+userns,$/m);
    expect(r.stdout).not.toContain('@BWRAP@');
    expect(r.stderr).toMatch(/apparmor_parser -r \/etc\/apparmor\.d\/gatehouse-bwrap/);
    expect(doctor(['--apply']).code).toBe(2);
  });
});

describe('doctor:run (the window)', () => {
  it('answers the same report through the host API, validated against the contract', async () => {
    const { Host } = await import('../../main/host');
    const { createHostApiDispatcher } = await import('../../main/api/dispatcher');
    const env = { ...process.env, HOME: tmp.dir, GATEHOUSE_SECRET_STORE: 'file', GATEHOUSE_BWRAP: refusedBwrap, GATEHOUSE_LANDLOCK: noLandlock };
    const host = new Host({ dataDir: path.join(tmp.dir, 'host-data'), env, audit: false });
    try {
      const api = createHostApiDispatcher(host, { shell: 'web', validateOutput: true });
      const report = DoctorReportSchema.parse(await api.handle('doctor:run', {}));
      if (process.platform === 'linux') {
        expect(report.ok).toBe(false);
        expect(check(report, 'sandbox.userns')!.detail).toMatch(/kernel\.apparmor_restrict_unprivileged_userns/);
      }
      expect(check(report, 'data.dir')!.detail).toContain(path.join(tmp.dir, 'host-data'));
    } finally {
      await host.shutdown();
    }
  });
});
