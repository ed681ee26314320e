// `gatehouse doctor --json` and the window's first-run panel (`doctor:run`): one report shape.
// Stable: check ids and the keys below only ever gain members; a check that no longer applies
// here (another platform) is left out, never renamed. docs/doctor.md lists every id.
import { z } from 'zod';

export const DoctorStatusSchema = z.enum(['ok', 'warning', 'error']);

export const DoctorCheckSchema = z.object({
  /** Stable id: `sandbox.bwrap`, `sandbox.userns`, `sandbox.apparmor`, `sandbox.landlock`, `sandbox.seccomp`, `secrets.store`, `app.electron`, `native.better-sqlite3`, `native.node-pty`, `tests.chromium`, `data.dir`. */
  id: z.string(),
  title: z.string(),
  /** error: a Gatehouse feature cannot work here; warning: it works with less (said in `detail`). */
  status: DoctorStatusSchema,
  /** What was found (a path, a version, the message a probe gave). */
  detail: z.string(),
  /** What to do, for this OS, when the status is not ok: a command where there is one. */
  fix: z.string().optional(),
});

export const DoctorReportSchema = z.object({
  /** The shape's version: bumped only when a key changes meaning (never so far). */
  schema: z.literal(1),
  /** No check is an error (warnings allowed): `gatehouse doctor` exits 0 exactly then. */
  ok: z.boolean(),
  platform: z.string(),
  /** "Debian GNU/Linux 12 (bookworm)", "macOS"… */
  os: z.string(),
  checks: z.array(DoctorCheckSchema),
});

export type DoctorCheck = z.infer<typeof DoctorCheckSchema>;
export type DoctorReport = z.infer<typeof DoctorReportSchema>;
