// Launch consent on a terminal (`gatehouse launch`, and `gatehouse gateway --trust-prompt`):
// each server whose launch identity is new or changed is shown with its exact command
// (untruncated; changed fields marked) and the person answers y or n. Always on the
// controlling terminal (/dev/tty), never on stdin/stdout: a gateway's stdio is the protocol.
import readline from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import type { ResolvedProfile } from '../profiles/types';
import { sanitize } from '../approvals/terminal-text';
import { approveReview, changeSummary, keepStoppedReview, type LaunchReview } from './launch-consent';
import { PROFILE_REVIEW } from './profile-identity';
import type { TrustStore } from './pin-store';

export async function askLaunchConsent(
  profile: ResolvedProfile,
  store: TrustStore,
  held: LaunchReview[],
  tty: { input: Readable; output: Writable },
  by = 'tty',
): Promise<{ approved: string[]; keptStopped: string[] }> {
  const rl = readline.createInterface({ input: tty.input, output: tty.output, terminal: false });
  const lines = rl[Symbol.asyncIterator]();
  const out = { approved: [] as string[], keptStopped: [] as string[] };
  const write = (s: string) => tty.output.write(s);
  try {
    for (const r of held) {
      const what = r.status === 'new' ? 'is new' : r.status === 'kept_stopped' ? 'was kept stopped before' : `changed since approved: ${changeSummary(r)}`;
      const subject = r.server === PROFILE_REVIEW ? 'its policy and tool surface' : `server '${r.server}': its launch command`;
      write(`\ngatehouse: profile '${profile.name}', ${subject} ${what}\n`);
      const before = new Map((r.previousLines ?? []).map((l) => [l.field, l.value]));
      for (const l of r.lines) {
        const changed = r.changed.includes(l.field);
        if (changed && before.has(l.field)) write(`   - ${l.label}: ${sanitize(before.get(l.field)!, false)}\n`);
        write(` ${changed ? '+' : ' '} ${l.label}: ${sanitize(l.value, false)}\n`);
      }
      write(r.server === PROFILE_REVIEW ? `Approve the profile's policy (nothing of it starts otherwise)? [y/N] ` : `Approve and start '${r.server}'? [y/N] `);
      const answer = await lines.next();
      const yes = !answer.done && /^\s*y(es)?\s*$/i.test(answer.value);
      if (yes) {
        approveReview(store, profile, r, by);
        out.approved.push(r.server);
      } else {
        keepStoppedReview(store, profile, r, by);
        out.keptStopped.push(r.server);
      }
    }
  } finally {
    rl.close();
  }
  return out;
}
