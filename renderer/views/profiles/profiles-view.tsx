// Profiles: what each profile starts and how it is governed, one click to launch or stop, the
// CLI's own file:line:col errors for a profile that does not validate, and per-server launch
// progress live from `server:status`. A running profile's card also says how many servers wait
// for trust review and whether its file changed on disk (Relaunch); Stop asks before it closes
// running terminals; after a launch, a panel says what to do next (docs/ui-layout.md).
import { useRef, useState } from 'react';
import { FileUp, FolderOpen, Play, RefreshCw, RotateCw, ShieldAlert, Square, TriangleAlert } from 'lucide-react';
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
import { useProfileChanges, useReviewCount, type ProfileChange } from './launch-hints';
import { NextSteps, nextStepsStore } from './next-steps';
import { StopConfirm, type StopQuestion } from './stop-confirm';

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
  const [busy, setBusy] = useState<Record<string, 'launch' | 'stop' | 'relaunch' | undefined>>({});
  const changes = useProfileChanges();
  const [question, setQuestion] = useState<(StopQuestion & { go: () => void }) | null>(null);
  const nextSteps = useStore(nextStepsStore, (s) => s);
  const setNextSteps = (v: { launchId: string; profile: string } | null) => nextStepsStore.set(v);
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
      setNextSteps({ launchId: l.id, profile: l.profile });
    } catch (e) {
      setLaunchErrors((m) => ({ ...m, [p.file]: errorText(e) }));
    } finally {
      setBusy((b) => ({ ...b, [p.file]: undefined }));
    }
  };

  const stop = async (p: ProfileSummary, l: LaunchSummary, then?: () => Promise<void>): Promise<void> => {
    setBusy((b) => ({ ...b, [p.file]: then ? 'relaunch' : 'stop' }));
    try {
      await api.call('profiles:stop', { launchId: l.id });
      if (nextStepsStore.get()?.launchId === l.id) setNextSteps(null);
    } catch (e) {
      toast.error(`Could not stop ${p.name}`, e);
      return;
    } finally {
      setBusy((b) => ({ ...b, [p.file]: undefined }));
    }
    await then?.();
  };

  /** Stop (or relaunch) at once when no terminal of the launch runs; otherwise ask, naming them. */
  const askThenStop = async (p: ProfileSummary, l: LaunchSummary, verb: StopQuestion['verb']): Promise<void> => {
    const go = () => void stop(p, l, verb === 'Relaunch' ? () => launch(p) : undefined);
    let open: StopQuestion['terminals'] = [];
    try {
      open = (await api.call('terminals:list', { launchId: l.id })).filter((t) => !t.exit).map((t) => ({ id: t.id, title: t.title, command: t.command }));
    } catch (e) {
      // Not knowing is no reason to close them unasked.
      toast.error(`Could not list the terminals of ${p.name}`, e);
      return;
    }
    if (open.length === 0) return go();
    setQuestion({ profile: p.name, verb, terminals: open, go });
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
        {nextSteps && running.some((l) => l.id === nextSteps.launchId) ? <NextSteps profile={nextSteps.profile} onDismiss={() => setNextSteps(null)} /> : null}
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
                <ProfileCard
                  profile={p}
                  launch={l}
                  busy={busy[p.file]}
                  launchError={launchErrors[p.file]}
                  change={l ? changes[l.id] : undefined}
                  onLaunch={() => void launch(p)}
                  onStop={() => l && void askThenStop(p, l, 'Stop')}
                  onRelaunch={() => l && void askThenStop(p, l, 'Relaunch')}
                  onReview={() => {
                    if (!l) return;
                    launches.setActive(l.id);
                    navigate('servers');
                  }}
                />
              </li>
            );
          })}
        </ul>
      </div>
      {question ? (
        <StopConfirm
          question={question}
          onCancel={() => setQuestion(null)}
          onConfirm={() => {
            setQuestion(null);
            question.go();
          }}
        />
      ) : null}
    </div>
  );
}

interface ProfileCardProps {
  profile: ProfileSummary;
  launch?: LaunchSummary;
  busy?: 'launch' | 'stop' | 'relaunch';
  launchError?: string;
  /** The file differs on disk from what this launch runs. */
  change?: ProfileChange;
  onLaunch: () => void;
  onStop: () => void;
  onRelaunch: () => void;
  /** Show the launch's trust reviews (the Servers view). */
  onReview: () => void;
}

function ProfileCard({ profile: p, launch, busy, launchError, change, onLaunch, onStop, onRelaunch, onReview }: ProfileCardProps) {
  const reviews = useReviewCount(launch?.id);
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
        {launch && reviews > 0 ? (
          <p className="profile-hint is-review">
            <ShieldAlert size={14} aria-hidden="true" />
            <button type="button" className="link" onClick={onReview}>
              {reviews === 1 ? '1 server waits for review' : `${reviews} servers wait for review`}
            </button>
            <span className="muted">: not started until you approve its launch command</span>
          </p>
        ) : null}
        {launch && change ? (
          <p className="profile-hint is-changed" role="status">
            <TriangleAlert size={14} aria-hidden="true" />
            <span>changed on disk since launch; the launch runs the profile as it was —</span>
            <Button size="sm" variant="secondary" icon={<RotateCw size={12} />} onClick={onRelaunch} busy={busy === 'relaunch'}>
              Relaunch
            </Button>
          </p>
        ) : null}
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
