// The first-run panel: the same checks as `gatehouse doctor` (`doctor:run`), shown above the
// views only when one fails (an error: a server or the audit store cannot work here), listing
// each problem and its fix. Dismissed, it stays away until the problems change.
import { useCallback, useEffect, useState } from 'react';
import type { DoctorCheck } from '../../../common/host-api';
import { useHostApi } from '../../api/context';
import { Banner } from '../../components/banner';
import { Button } from '../../components/button';

const DISMISSED_KEY = 'gatehouse.doctorDismissed';

/** What was dismissed: the failing checks and what they said (a new problem shows the panel again). */
const fingerprint = (problems: DoctorCheck[]): string => problems.map((c) => `${c.id}:${c.status}:${c.detail}`).join('\n');

function readDismissed(): string | null {
  try {
    return localStorage.getItem(DISMISSED_KEY);
  } catch {
    return null;
  }
}

export function DoctorPanel() {
  const api = useHostApi();
  const [problems, setProblems] = useState<DoctorCheck[]>([]);
  const [dismissed, setDismissed] = useState<string | null>(() => readDismissed());
  const [busy, setBusy] = useState(false);

  const run = useCallback(
    async (refresh: boolean) => {
      setBusy(true);
      try {
        const report = await api.call('doctor:run', refresh ? { refresh } : {});
        setProblems(report.checks.filter((c) => c.status === 'error'));
      } catch {
        // The doctor is advice: a failed ask shows nothing rather than a wrong panel.
      } finally {
        setBusy(false);
      }
    },
    [api],
  );
  useEffect(() => void run(false), [run]);

  if (problems.length === 0 || dismissed === fingerprint(problems)) return null;
  const dismiss = (): void => {
    const fp = fingerprint(problems);
    try {
      localStorage.setItem(DISMISSED_KEY, fp);
    } catch {}
    setDismissed(fp);
  };
  return (
    <section className="doctor-panel" aria-label="Machine check">
      <Banner
        tone="danger"
        title={`This machine is not ready for Gatehouse: ${problems.length} problem${problems.length === 1 ? '' : 's'} (gatehouse doctor)`}
        actions={
          <>
            <Button size="sm" busy={busy} onClick={() => void run(true)}>Check again</Button>
            <Button size="sm" variant="ghost" onClick={dismiss}>Dismiss</Button>
          </>
        }
      >
        <ul className="doctor-problems">
          {problems.map((c) => (
            <li key={c.id} data-check={c.id}>
              <strong>{c.title}</strong>: {c.detail}
              {c.fix ? (
                <div className="doctor-fix">
                  Fix: <code className="mono">{c.fix}</code>
                </div>
              ) : null}
            </li>
          ))}
        </ul>
      </Banner>
    </section>
  );
}
