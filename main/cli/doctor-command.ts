// `gatehouse doctor [--json] [--fix [--apply]]`: is this machine ready for Gatehouse? The same
// checks as the window's first-run panel (main/doctor/run-doctor.ts). Exit codes: 0 every check
// ok or a warning, 1 at least one error, 2 usage error. The report goes to stdout; --json prints
// it as one JSON document of the documented shape (common/host-api-doctor.ts, docs/doctor.md).
import { parseArgs } from 'node:util';
import type { DoctorCheck } from '../../common/host-api-doctor';
import { DoctorReportSchema } from '../../common/host-api-doctor';
import { apparmorInstallCommands, apparmorProfile, applyApparmorProfile, APPARMOR_PROFILE_FILE } from '../doctor/apparmor-profile';
import { runDoctor } from '../doctor/run-doctor';
import { bwrapPath } from '../sandbox/availability';

const USAGE = `usage: gatehouse doctor [--json] [--fix [--apply]] [--data-dir DIR]
  Checks the sandbox (bubblewrap, user namespaces, AppArmor, Landlock, seccomp), the secret store,
  Electron, the native modules, Chromium (for npm test) and the data directory.
  --json    the report as JSON (docs/doctor.md)
  --fix     show the AppArmor profile that lets Gatehouse's bwrap create user namespaces, and how
            to install it (${APPARMOR_PROFILE_FILE})
  --apply   with --fix: install and load it (asks for your password through pkexec or sudo)`;

const MARK: Record<DoctorCheck['status'], string> = { ok: 'ok  ', warning: 'warn', error: 'FAIL' };

export async function run(argv: string[]): Promise<number> {
  let values;
  try {
    values = parseArgs({
      args: argv,
      strict: true,
      options: { json: { type: 'boolean' }, fix: { type: 'boolean' }, apply: { type: 'boolean' }, 'data-dir': { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    }).values;
  } catch (err) {
    process.stderr.write(`gatehouse doctor: ${(err as Error).message}\n${USAGE}\n`);
    return 2;
  }
  if (values.help) {
    process.stderr.write(`${USAGE}\n`);
    return 0;
  }
  if (values.apply && !values.fix) {
    process.stderr.write(`gatehouse doctor: --apply only makes sense with --fix\n${USAGE}\n`);
    return 2;
  }
  if (values.fix) return fix(!!values.apply);

  const report = DoctorReportSchema.parse(runDoctor({ dataDir: values['data-dir'] }));
  if (values.json) {
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    return report.ok ? 0 : 1;
  }
  const lines = [`gatehouse doctor: ${report.os} (${report.platform})`];
  for (const c of report.checks) {
    lines.push(`  ${MARK[c.status]}  ${c.title}: ${c.detail}`);
    if (c.fix && c.status !== 'ok') lines.push(`        fix: ${c.fix}`);
  }
  const errors = report.checks.filter((c) => c.status === 'error').length;
  const warnings = report.checks.filter((c) => c.status === 'warning').length;
  lines.push(errors > 0 ? `${errors} problem${errors === 1 ? '' : 's'} to fix${warnings ? `, ${warnings} warning${warnings === 1 ? '' : 's'}` : ''}` : `ready${warnings ? ` (${warnings} warning${warnings === 1 ? '' : 's'})` : ''}`);
  process.stdout.write(`${lines.join('\n')}\n`);
  return report.ok ? 0 : 1;
}

function fix(apply: boolean): number {
  if (process.platform !== 'linux') {
    process.stderr.write('gatehouse doctor --fix: the AppArmor profile is for Linux only\n');
    return 1;
  }
  const bwrap = bwrapPath();
  let profile: string;
  try {
    profile = apparmorProfile(bwrap);
  } catch (err) {
    process.stderr.write(`gatehouse doctor --fix: ${(err as Error).message}\n`);
    return 1;
  }
  if (!apply) {
    process.stdout.write(`# ${APPARMOR_PROFILE_FILE}\n${profile}`);
    const cmds = apparmorInstallCommands('FILE').map((c) => `  sudo ${c}`);
    process.stderr.write(
      `\nsave the profile above as FILE, then:\n${cmds.join('\n')}\n(or: gatehouse doctor --fix --apply, which does both and asks for your password)\nthen: gatehouse doctor\n`,
    );
    return 0;
  }
  const r = applyApparmorProfile(bwrap);
  process.stderr.write(`gatehouse doctor --fix: ${r.message}\n`);
  if (!r.ok) return 1;
  const after = runDoctor().checks.find((c) => c.id === 'sandbox.userns');
  process.stderr.write(`gatehouse doctor: user namespaces now: ${after ? `${after.status}: ${after.detail}` : 'not checked'}\n`);
  return after?.status === 'error' ? 1 : 0;
}
