// Profiles: what each profile starts and how it is governed, one click to launch or stop, the
// CLI's own file:line:col errors for a profile that does not validate, and per-server launch
// progress live from `server:status`.
import { useRef, useState } from 'react';
import { FileUp, FolderOpen, Play, RefreshCw, Square, TriangleAlert } from 'lucide-react';
import { useHostApi } from '../../api/context';
import { Badge, StateBadge } from '../../components/badge';
import { Banner } from '../../components/banner';
import { Button, IconButton } from '../../components/button';
import { EmptyState } from '../../components/empty-state';
import { PageHeader } from '../../components/page-header';
import { errorText, useToast } from '../../components/toasts';
import { isUnknownCommand, useCommand } from '../../components/use-command';
import { useAppState } from '../../state/app-context';
import { launchForProfile } from '../../state/launches-store';
import { navigate } from '../../state/nav-store';
import { useStore } from '../../state/store';
import type { LaunchSummary, ProfileSummary } from '../../state/types';

interface ImportResult {
  file: string;
  name: string;
  warnings: string[];
}

export function ProfilesView() {
  const api = useHostApi();
  const toast = useToast();
  const { launches } = useAppState();
  const running = useStore(launches, (s) => s.launches);
  const profiles = useCommand('profiles:list', {});
  const [busy, setBusy] = useState<Record<string, 'launch' | 'stop' | undefined>>({});
  const [launchErrors, setLaunchErrors] = useState<Record<string, string>>({});
  const [imported, setImported] = useState<ImportResult | null>(null);
  const [importError, setImportError] = useState<string | null>(null);
  const fileInput = useRef<HTMLInputElement>(null);

  const launch = async (p: ProfileSummary): Promise<void> => {
    setBusy((b) => ({ ...b, [p.file]: 'launch' }));
    setLaunchErrors(({ [p.file]: _gone, ...rest }) => rest);
    try {
      const l = await api.call('profiles:launch', { ref: p.file });
      launches.applyLaunchChanged(l);
      launches.setActive(l.id);
    } catch (e) {
      setLaunchErrors((m) => ({ ...m, [p.file]: errorText(e) }));
    } finally {
      setBusy((b) => ({ ...b, [p.file]: undefined }));
    }
  };

  const stop = async (p: ProfileSummary, l: LaunchSummary): Promise<void> => {
    setBusy((b) => ({ ...b, [p.file]: 'stop' }));
    try {
      await api.call('profiles:stop', { launchId: l.id });
    } catch (e) {
      toast.error(`Could not stop ${p.name}`, e);
    } finally {
      setBusy((b) => ({ ...b, [p.file]: undefined }));
    }
  };

  const onImportFile = async (file: File): Promise<void> => {
    setImportError(null);
    setImported(null);
    try {
      const text = await file.text();
      const res = await api.call('profiles:import', { fileName: file.name, text });
      setImported(res);
      profiles.reload();
    } catch (e) {
      setImportError(isUnknownCommand(e) ? 'This host cannot import client configurations yet (profiles:import is not available). Use `gatehouse profiles import FILE` when it lands.' : errorText(e));
    }
  };

  const list = profiles.data ?? [];

  return (
    <div className="view view-profiles">
      <PageHeader
        title="Profiles"
        subtitle="A profile names the MCP servers a workspace needs and what an agent may do with them."
        actions={
          <>
            <input
              ref={fileInput}
              type="file"
              accept=".json,.toml,.yaml,.yml,application/json"
              className="visually-hidden"
              tabIndex={-1}
              aria-hidden="true"
              onChange={(e) => {
                const f = e.target.files?.[0];
                e.target.value = '';
                if (f) void onImportFile(f);
              }}
            />
            <Button icon={<FileUp size={14} />} onClick={() => fileInput.current?.click()} title="Import an existing MCP client configuration (Claude, Cursor, VS Code…) as a profile">
              Import…
            </Button>
            <IconButton label="Reload profiles" icon={<RefreshCw size={14} />} onClick={profiles.reload} variant="secondary" />
          </>
        }
      />
      <div className="view-body scroll">
        {imported ? (
          <Banner tone={imported.warnings.length ? 'warn' : 'ok'} title={`Imported “${imported.name}”`} actions={<IconButton label="Dismiss" icon={<span aria-hidden="true">×</span>} onClick={() => setImported(null)} />}>
            <div>Written to <code className="mono">{imported.file}</code></div>
            {imported.warnings.length ? (
              <ul className="plain-list">
                {imported.warnings.map((w, i) => <li key={i}>{w}</li>)}
              </ul>
            ) : null}
          </Banner>
        ) : null}
        {importError ? (
          <Banner tone="danger" title="Import failed" actions={<IconButton label="Dismiss" icon={<span aria-hidden="true">×</span>} onClick={() => setImportError(null)} />}>
            {importError}
          </Banner>
        ) : null}
        {profiles.error ? <Banner tone="danger" title="Could not list profiles">{errorText(profiles.error)}</Banner> : null}
        {!profiles.loading && !profiles.error && list.length === 0 ? (
          <EmptyState icon={<FolderOpen size={28} />} title="No profiles found">
            Put a <code>*.gatehouse.yaml</code> profile in your profiles folder, or import an existing client configuration.
          </EmptyState>
        ) : null}
        {profiles.loading && !profiles.data ? <p className="muted pad">Loading profiles…</p> : null}
        <ul className="profile-list" aria-label="Profiles">
          {list.map((p) => {
            const l = launchForProfile(running, p);
            return (
              <li key={p.file}>
                <ProfileCard profile={p} launch={l} busy={busy[p.file]} launchError={launchErrors[p.file]} onLaunch={() => void launch(p)} onStop={() => l && void stop(p, l)} />
              </li>
            );
          })}
        </ul>
      </div>
    </div>
  );
}

function ProfileCard({ profile: p, launch, busy, launchError, onLaunch, onStop }: { profile: ProfileSummary; launch?: LaunchSummary; busy?: 'launch' | 'stop'; launchError?: string; onLaunch: () => void; onStop: () => void }) {
  const invalid = Boolean(p.error || p.issues?.length);
  const headingId = `profile-${p.file.replace(/[^A-Za-z0-9_-]/g, '_')}`;
  const ready = launch?.servers.filter((s) => s.state === 'ready').length ?? 0;
  return (
    <section className={`card profile-card${invalid ? ' is-invalid' : ''}${launch ? ' is-running' : ''}`} aria-labelledby={headingId}>
      <div className="profile-main">
        <div className="profile-head">
          <h2 className="profile-name" id={headingId}>{p.name}</h2>
          {launch ? <Badge tone={ready === launch.servers.length ? 'ok' : 'info'}>running · {ready}/{launch.servers.length} ready</Badge> : null}
          {invalid ? <Badge tone="danger">invalid</Badge> : null}
          {p.shadowed ? <Badge tone="warn" title="Another profile with the same name takes precedence">shadowed</Badge> : null}
        </div>
        {p.description ? <p className="profile-desc">{p.description}</p> : null}
        <div className="profile-file mono" title={p.file}>{p.file}</div>
        {!invalid ? (
          <dl className="profile-facts">
            <div>
              <dt>Servers</dt>
              <dd className="chip-row">
                {p.servers.length ? p.servers.map((s) => <span className="chip mono" key={s}>{s}</span>) : <span className="muted">none</span>}
              </dd>
            </div>
            <div>
              <dt>Tool surface</dt>
              <dd>{p.toolSurface ?? 'friendly'}</dd>
            </div>
            <div>
              <dt>Policy default</dt>
              <dd>{p.policyDefault ? <Badge tone={p.policyDefault === 'allow' ? 'ok' : p.policyDefault === 'deny' ? 'danger' : 'warn'}>{p.policyDefault}</Badge> : <span className="muted">—</span>}</dd>
            </div>
          </dl>
        ) : null}
        {invalid ? (
          <div className="profile-errors" role="alert">
            <div className="profile-errors-title"><TriangleAlert size={14} aria-hidden="true" /> This profile does not validate; nothing was started.</div>
            {p.issues?.length ? (
              <ul className="issue-list">
                {p.issues.map((i, k) => (
                  <li key={k} className="mono">
                    <span className="issue-loc">{i.file}:{i.line}:{i.column}</span> {i.path ? <span className="issue-path">{i.path}</span> : null} {i.message}
                  </li>
                ))}
              </ul>
            ) : (
              <pre className="code-block error-text">{p.error}</pre>
            )}
          </div>
        ) : null}
        {launchError ? (
          <div className="profile-errors" role="alert">
            <div className="profile-errors-title"><TriangleAlert size={14} aria-hidden="true" /> Launch failed</div>
            <pre className="code-block error-text">{launchError}</pre>
          </div>
        ) : null}
        {launch ? (
          <div className="launch-progress" aria-label={`Launch progress of ${p.name}`}>
            {launch.servers.map((s) => (
              <button type="button" key={s.id} className="progress-item" onClick={() => navigate('servers', { server: s.id })} title={s.reason || s.state}>
                <span className="mono">{s.id}</span>
                <StateBadge state={s.state} />
              </button>
            ))}
          </div>
        ) : null}
      </div>
      <div className="profile-actions">
        {launch ? (
          <Button variant="secondary" icon={<Square size={13} />} onClick={onStop} busy={busy === 'stop'} aria-describedby={headingId}>
            Stop
          </Button>
        ) : (
          <Button variant="primary" icon={<Play size={13} />} onClick={onLaunch} busy={busy === 'launch'} disabled={invalid} aria-describedby={headingId}>
            Launch
          </Button>
        )}
      </div>
    </section>
  );
}
