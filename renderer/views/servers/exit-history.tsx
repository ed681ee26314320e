// A server's exits during this launch (host: main/supervisor/exit-history.ts), newest first: a
// crash stays readable after the supervisor has restarted the server and its banner is gone.
import { formatDuration } from '../../components/format-time';
import { StderrBlock } from '../../components/stderr-block';
import { Timestamp } from '../../components/timestamp';
import type { ServerStatus } from '../../state/types';

type ExitRecord = NonNullable<ServerStatus['exits']>[number];

export function exitHow(x: Pick<ExitRecord, 'code' | 'signal'>): string {
  return x.signal ? `killed by ${x.signal}` : x.code !== null ? `exited with code ${x.code}` : 'ended';
}

export function ExitHistory({ server }: { server: ServerStatus }) {
  const exits = [...(server.exits ?? [])].reverse();
  if (exits.length === 0) return null;
  return (
    <div className="detail-block">
      <div className="section-label">Exits during this launch ({exits.length})</div>
      <table className="table exit-history" aria-label={`Exits of ${server.id}`}>
        <thead>
          <tr>
            <th>When</th>
            <th className="num">Run</th>
            <th>How</th>
            <th className="num">Uptime</th>
            <th>Reason</th>
          </tr>
        </thead>
        <tbody>
          {exits.map((x) => (
            <tr key={`${x.run}-${x.at}`}>
              <td><Timestamp ts={x.at} /></td>
              <td className="num mono">{x.run}</td>
              <td className="mono">{exitHow(x)}</td>
              <td className="num mono">{formatDuration(x.uptimeMs)}</td>
              <td>
                {/* The supervisor's reason often just repeats "how"; show it only when it adds something. */}
                {x.reason !== exitHow(x) ? <span className="muted">{x.reason}</span> : null}
                {x.stderrTail.length ? (
                  <details className="disclosure">
                    <summary>stderr before this exit ({x.stderrTail.length} line{x.stderrTail.length === 1 ? '' : 's'})</summary>
                    <StderrBlock lines={x.stderrTail} label={`Stderr before exit ${x.run} of ${server.id}`} />
                  </details>
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
