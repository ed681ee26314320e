// Servers of the active launch: live state with its reason, pid, a ticking uptime, restarts,
// tools and protocol faults, with Restart / Stop per server. A server that crashed keeps its
// row and details, with a banner (exit code or signal, uptime, last stderr lines) and a
// one-click restart: crashes are visible, not erased.
import { useEffect, useState } from 'react';
import { Play, RotateCw, ScrollText, Server, Square } from 'lucide-react';
import { useHostApi } from '../../api/context';
import { Badge, StateBadge } from '../../components/badge';
import { SandboxBadge, SandboxDetails } from './sandbox-badge';
import { EraBadge } from './era-badge';
import { Banner } from '../../components/banner';
import { Button } from '../../components/button';
import { formatCountdown, formatDuration } from '../../components/format-time';
import { JsonView } from '../../components/json-view';
import { NoLaunchView } from '../../components/no-launch';
import { PageHeader } from '../../components/page-header';
import { Timestamp } from '../../components/timestamp';
import { useToast } from '../../components/toasts';
import { StderrBlock } from '../../components/stderr-block';
import { stripAnsi } from '../../lib/ansi/ansi';
import { useNow } from '../../components/use-now';
import { useAppState } from '../../state/app-context';
import { navigate, navStore } from '../../state/nav-store';
import { useStore } from '../../state/store';
import type { LaunchSummary, ServerStatus } from '../../state/types';
import { TrustReview } from './trust-review';
import { ExportModelButton } from './export-model-button';
import { WorkspaceNote } from './workspace-note';
import { ServerSignIn } from './server-sign-in';
import { ExitHistory, exitHow } from './exit-history';
import { ServerFlowMarks } from './flow-marks';

type Action = 'restart' | 'stop' | 'start';

export function uptimeOf(s: ServerStatus, now: number): number | undefined {
  if ((s.state === 'ready' || s.state === 'starting' || s.state === 'stopping') && s.startedAt) return now - s.startedAt;
  return s.lastExit?.uptimeMs;
}

export function exitText(s: ServerStatus): string | null {
  const x = s.lastExit;
  if (!x) return null;
  return `${exitHow(x)} after ${formatDuration(x.uptimeMs)}`;
}

export function ServersView() {
  const { launches } = useAppState();
  const launch = useStore(launches, (s) => s.launches.find((l) => l.id === s.activeId));
  const focus = useStore(navStore, (s) => s.focus?.server);
  const [selected, setSelected] = useState<string | null>(focus ?? null);

  useEffect(() => {
    if (focus) setSelected(focus);
  }, [focus]);

  if (!launch) {
    return (
      <NoLaunchView title="Servers" icon={<Server size={28} />}>
        Launch a profile to see its servers here.
      </NoLaunchView>
    );
  }

  const current = launch.servers.find((s) => s.id === selected) ?? launch.servers.find((s) => s.state === 'failed') ?? launch.servers[0];
  const ready = launch.servers.filter((s) => s.state === 'ready').length;

  return (
    <div className="view view-servers">
      <PageHeader
        title="Servers"
        subtitle={
          <>
            <b>{launch.profile}</b> · {ready}/{launch.servers.length} ready · launched <Timestamp ts={launch.startedAt} /> · <WorkspaceNote launch={launch} />
          </>
        }
        actions={<ExportModelButton launchId={launch.id} />}
      />
      <div className="view-body scroll">
        <TrustReview launchId={launch.id} />
        <ServerTable launch={launch} selected={current?.id} onSelect={setSelected} />
        {current ? <ServerDetails launch={launch} server={current} /> : null}
      </div>
    </div>
  );
}

function useServerAction(launch: LaunchSummary) {
  const api = useHostApi();
  const toast = useToast();
  const [busy, setBusy] = useState<Record<string, Action | undefined>>({});
  const run = async (serverId: string, action: Action): Promise<void> => {
    setBusy((b) => ({ ...b, [serverId]: action }));
    try {
      await api.call(`servers:${action}`, { launchId: launch.id, serverId });
    } catch (e) {
      toast.error(`Could not ${action} ${serverId}`, e);
    } finally {
      setBusy((b) => ({ ...b, [serverId]: undefined }));
    }
  };
  return { busy, run };
}

function ServerTable({ launch, selected, onSelect }: { launch: LaunchSummary; selected?: string; onSelect: (id: string) => void }) {
  const now = useNow(1000);
  const { busy, run } = useServerAction(launch);
  return (
    <table className="table table-interactive servers-table" aria-label={`Servers of ${launch.profile}`}>
      <thead>
        <tr>
          <th>Server</th>
          <th>State</th>
          <th>Reason</th>
          <th className="num">PID</th>
          <th className="num">Uptime</th>
          <th className="num">Restarts</th>
          <th className="num">Tools</th>
          <th className="num">Faults</th>
          <th className="actions-col"><span className="visually-hidden">Actions</span></th>
        </tr>
      </thead>
      <tbody>
        {launch.servers.map((s) => {
          const up = uptimeOf(s, now);
          const stopped = s.state === 'stopped' || s.state === 'failed';
          return (
            <tr key={s.id} className={`${s.id === selected ? 'is-selected' : ''} state-${s.state}`} aria-selected={s.id === selected} onClick={() => onSelect(s.id)}>
              <td>
                <button type="button" className="link-plain mono strong" onClick={() => onSelect(s.id)} aria-label={`Details of ${s.id}`}>
                  {s.id}
                </button>
                <span className="muted small"> {s.kind}</span> <SandboxBadge sandbox={s.sandbox} /> <EraBadge status={s} />
              </td>
              <td><StateBadge state={s.state} /></td>
              <td className="cell-ellipsis muted" title={stripAnsi(s.reason)}>
                {s.state === 'restarting' && s.nextRestartAt ? `retry in ${formatCountdown(s.nextRestartAt - now)} · ` : ''}
                {/* The reason quotes stderr, escapes and all: a one-line summary shows it plain. */}
                {stripAnsi(s.reason)}
              </td>
              <td className="num mono">{s.pid ?? '—'}</td>
              <td className="num mono">{up === undefined ? '—' : formatDuration(up)}</td>
              <td className="num mono">{s.restarts}</td>
              <td className="num mono">{s.toolCount ?? '—'}</td>
              <td className="num mono">{s.protocolFaults ? <Badge tone="danger">{s.protocolFaults}</Badge> : 0}</td>
              <td className="actions-col" onClick={(e) => e.stopPropagation()}>
                <span className="row-actions" role="group" aria-label={`Actions for ${s.id}`}>
                  <Button size="sm" icon={<RotateCw size={13} />} onClick={() => void run(s.id, 'restart')} busy={busy[s.id] === 'restart'} disabled={s.kind === 'builtin' && s.state === 'stopping'}>
                    Restart
                  </Button>
                  {stopped ? (
                    <Button size="sm" icon={<Play size={13} />} onClick={() => void run(s.id, 'start')} busy={busy[s.id] === 'start'}>
                      Start
                    </Button>
                  ) : (
                    <Button size="sm" icon={<Square size={12} />} onClick={() => void run(s.id, 'stop')} busy={busy[s.id] === 'stop'} disabled={s.state === 'stopping'}>
                      Stop
                    </Button>
                  )}
                </span>
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

function ServerDetails({ launch, server: s }: { launch: LaunchSummary; server: ServerStatus }) {
  const now = useNow(1000);
  const { busy, run } = useServerAction(launch);
  const up = uptimeOf(s, now);
  const crashed = s.state === 'failed' || (s.state === 'restarting' && s.lastExit) || (s.state === 'stopped' && s.lastExit && s.lastExit.code !== 0 && s.lastExit.code !== null);
  return (
    <section className="server-details" aria-labelledby={`server-${s.id}-title`}>
      <div className="section-head">
        <h2 className="section-title" id={`server-${s.id}-title`}>
          <span className="mono">{s.id}</span> <StateBadge state={s.state} />
        </h2>
        <span className="spacer" />
        <Button size="sm" variant="ghost" icon={<ScrollText size={13} />} onClick={() => navigate('logs', { server: s.id })}>
          Open logs
        </Button>
      </div>

      <ServerSignIn launch={launch} server={s} />

      {crashed && s.lastExit ? (
        <Banner
          tone={s.state === 'restarting' ? 'warn' : 'danger'}
          title={`${s.id} ${exitText(s)}${s.state === 'restarting' && s.nextRestartAt ? ` · restarting in ${formatCountdown(s.nextRestartAt - now)}` : ''}`}
          actions={
            <Button size="sm" variant="primary" icon={<RotateCw size={13} />} onClick={() => void run(s.id, 'restart')} busy={busy[s.id] === 'restart'}>
              Restart
            </Button>
          }
        >
          <div className="muted">
            {s.lastExit.reason} · at <Timestamp ts={s.lastExit.at} /> · run {s.run}, {s.restarts} restart{s.restarts === 1 ? '' : 's'}
          </div>
          {s.stderrTail.length ? <StderrBlock lines={s.stderrTail.slice(-12)} label={`Last stderr lines of ${s.id}`} /> : <div className="muted">No stderr output before the exit.</div>}
        </Banner>
      ) : null}

      <dl className="kv kv-grid">
        <dt>Command</dt>
        <dd className="mono wrap">{s.command}</dd>
        <dt>Working directory</dt>
        <dd className="mono">{s.cwd ?? '—'}</dd>
        {s.sandbox ? (
          <>
            <dt>Sandbox</dt>
            <dd>{s.sandbox.summary}</dd>
            {/* How this run's processes, memory and cpu are capped, and by what (docs/sandbox.md "Limits"). */}
            <dt>Limits</dt>
            <dd className="mono">{s.sandbox.limits ?? '—'}</dd>
          </>
        ) : null}
        <dt>PID</dt>
        <dd className="mono">{s.pid ?? '—'}</dd>
        <dt>Uptime</dt>
        <dd className="mono">{up === undefined ? '—' : formatDuration(up)}</dd>
        <dt>Started</dt>
        <dd>{s.startedAt ? <Timestamp ts={s.startedAt} /> : '—'}{s.readyAt && s.startedAt ? <span className="muted"> · ready after {formatDuration(s.readyAt - s.startedAt)}</span> : null}</dd>
        <dt>Run</dt>
        <dd>#{s.run} · {s.restarts} restart{s.restarts === 1 ? '' : 's'}</dd>
        <dt>Protocol version</dt>
        <dd className="mono">{s.protocolVersion ?? '—'}</dd>
        <dt>Server info</dt>
        <dd>{s.serverInfo ? <><span className="mono">{s.serverInfo.name}</span> <span className="muted">{s.serverInfo.version}</span></> : '—'}</dd>
        <dt>Tools</dt>
        <dd>{s.toolCount ?? '—'}</dd>
        <dt>Protocol faults</dt>
        <dd>{s.protocolFaults ? <Badge tone="danger" title="Lines on stdout that were not JSON-RPC; recorded and dropped">{s.protocolFaults}</Badge> : '0'}</dd>
      </dl>

      <SandboxDetails id={s.id} sandbox={s.sandbox} />
      <ServerFlowMarks launchId={launch.id} server={s.id} toolCount={s.toolCount} />
      {s.capabilities ? (
        <div className="detail-block">
          <div className="section-label">Capabilities</div>
          <div className="chip-row">
            {Object.keys(s.capabilities).map((k) => <span className="chip mono" key={k}>{k}</span>)}
          </div>
          <details className="disclosure">
            <summary>Show the full capabilities object</summary>
            <JsonView value={s.capabilities} maxHeight={260} label={`Capabilities of ${s.id}`} />
          </details>
        </div>
      ) : null}
      {s.instructions ? (
        <div className="detail-block">
          <div className="section-label">Instructions</div>
          <p className="prewrap">{s.instructions}</p>
        </div>
      ) : null}
      {!crashed && s.stderrTail.length ? (
        <div className="detail-block">
          <div className="section-label">Recent stderr</div>
          <StderrBlock lines={s.stderrTail.slice(-8)} label={`Recent stderr of ${s.id}`} />
        </div>
      ) : null}
      <ExitHistory server={s} />
    </section>
  );
}
