// Launch consent for `gatehouse launch` and `gatehouse gateway`, before the host starts anything:
// ask on the controlling terminal when allowed (`ask`) and there is one; otherwise print one
// line naming `gatehouse trust accept` (docs/trust.md). Held servers then stay stopped; the
// rest start, and approving later (another terminal, the window) starts the held ones.
import type { Host } from '../host';
import type { ResolvedProfile } from '../profiles/types';
import { openControllingTty } from '../approvals/controlling-tty';
import { holds, refusalLine, reviewProfileLaunch } from '../trust/launch-consent';
import { askLaunchConsent } from '../trust/terminal-consent';
import { cliActor } from './trust-store';
import { launchSearchPath } from '../trust/program-identity';

export async function settleLaunchConsent(host: Host, profile: ResolvedProfile, ref: string, opts: { ask: boolean; log: (line: string) => void }): Promise<void> {
  const held = reviewProfileLaunch(profile, host.trust, { searchPath: await launchSearchPath(host.env) }).filter(holds);
  if (held.length === 0) return;
  const tty = opts.ask ? openControllingTty() : undefined;
  if (!tty) {
    opts.log(refusalLine(ref, held));
    return;
  }
  try {
    const answer = await askLaunchConsent(profile, host.trust, held, tty, `tty:${cliActor().slice(4)}`);
    if (answer.keptStopped.length) opts.log(refusalLine(ref, held.filter((r) => answer.keptStopped.includes(r.server))));
  } finally {
    tty.close();
  }
}
