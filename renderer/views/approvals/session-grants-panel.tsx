// The Approvals view's "Session grants": every remembered "allow for this session" answer of the
// running launches (host API grants:list), each with Revoke (grants:revoke). Refetched whenever
// an answer lands in this window (a new grant) and after a revoke; grants made in another window
// show on the next answer or when this view opens.
import { useCallback, useEffect, useState } from 'react';
import type { CommandOutput } from '../../../common/host-api';
import { useHostApi } from '../../api/context';
import { Button } from '../../components/button';
import { Timestamp } from '../../components/timestamp';
import { Visible } from './argument-list';

type Grant = CommandOutput<'grants:list'>[number];

function covers(g: Grant): string {
  if (g.grant === 'tool') return 'every call of this tool';
  if (g.grant === 'pattern') return `calls whose ${g.arg} matches ${g.pattern}`;
  return `these arguments: ${JSON.stringify(g.args ?? {})}`;
}

export function SessionGrantsPanel({ refreshKey }: { refreshKey: number }) {
  const api = useHostApi();
  const [grants, setGrants] = useState<Grant[]>([]);
  const [error, setError] = useState<string | undefined>();
  const load = useCallback(async () => {
    try {
      setGrants(await api.call('grants:list', {}));
      setError(undefined);
    } catch (err) {
      setError((err as Error).message);
    }
  }, [api]);
  useEffect(() => {
    void load();
  }, [load, refreshKey]);
  const revoke = async (id: string) => {
    try {
      await api.call('grants:revoke', { id });
    } catch (err) {
      setError((err as Error).message);
    }
    await load();
  };

  return (
    <section aria-label="Session grants" className="approvals-history">
      <div className="section-head">
        <h2 className="section-title">Session grants ({grants.length})</h2>
      </div>
      {error ? <p className="muted pad">Cannot list grants: {error}</p> : null}
      {grants.length === 0 ? (
        <p className="muted pad">No call is allowed for a session right now.</p>
      ) : (
        <table className="table">
          <thead>
            <tr><th>Since</th><th>Tool</th><th>Covers</th><th>Agent</th><th>By</th><th /></tr>
          </thead>
          <tbody>
            {grants.map((g) => (
              <tr key={g.id} data-testid="session-grant">
                <td><Timestamp ts={g.createdAt} /></td>
                <td className="mono"><Visible text={g.tool} oneLine /></td>
                <td className="cell-wrap">{covers(g)}</td>
                <td className="mono" title={g.agentSession}>{g.agentName ?? g.agentSession ?? '—'}</td>
                <td>{g.by}</td>
                <td>
                  <Button onClick={() => void revoke(g.id)} aria-label={`Revoke the grant for ${g.tool}`}>
                    Revoke
                  </Button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
