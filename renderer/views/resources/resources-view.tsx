// Resources (docs/ui-layout.md "Resources and Prompts"): the active launch's resources and
// resource templates as an agent lists them, read through the gateway as the window's own
// session (each read is an exchange in Traffic), text and blob contents, and subscriptions
// whose updates (`resource:updated`) are shown as they arrive.
import { useEffect, useMemo, useState } from 'react';
import { BellOff, BellRing, FileText, Play, RefreshCw } from 'lucide-react';
import type { CommandOutput, EventPayload } from '../../../common/host-api';
import { useHostApi } from '../../api/context';
import { Badge } from '../../components/badge';
import { Banner } from '../../components/banner';
import { Button, IconButton } from '../../components/button';
import { EmptyState } from '../../components/empty-state';
import { formatBytes } from '../../components/format-time';
import { NoLaunchView } from '../../components/no-launch';
import { PageHeader } from '../../components/page-header';
import { filterByText } from '../../components/picker-filter';
import { PickerGroup, PickerItem, PickerList } from '../../components/picker-list';
import { ResultBlock, ResultPanel, ResultText } from '../../components/result-panel';
import { SplitPane } from '../../components/split-pane';
import { errorText } from '../../components/toasts';
import { useCommand } from '../../components/use-command';
import { downloadBytes } from '../../lib/download';
import { useAppState } from '../../state/app-context';
import { useStore } from '../../state/store';
import { expandTemplate, templateVariables } from './uri-template';

type Listing = CommandOutput<'resources:list'>;
type Read = CommandOutput<'resources:read'>;
type Selection = { kind: 'resource'; uri: string } | { kind: 'template'; uriTemplate: string };

export function ResourcesView() {
  const api = useHostApi();
  const { launches } = useAppState();
  const launch = useStore(launches, (s) => s.launches.find((l) => l.id === s.activeId));
  const listing = useCommand('resources:list', launch ? { launchId: launch.id } : null);
  const [query, setQuery] = useState('');
  const [selected, setSelected] = useState<Selection | null>(null);
  const [subscribed, setSubscribed] = useState<readonly string[] | null>(null);
  const [updates, setUpdates] = useState<ReadonlyMap<string, number[]>>(new Map());

  useEffect(() => setSubscribed(null), [launch?.id]);
  useEffect(
    () =>
      api.on('resource:updated', (e: EventPayload<'resource:updated'>) => {
        if (e.launchId !== launch?.id) return;
        setUpdates((m) => new Map(m).set(e.uri, [Date.now(), ...(m.get(e.uri) ?? [])].slice(0, 20)));
      }),
    [api, launch?.id],
  );

  if (!launch) {
    return (
      <NoLaunchView title="Resources" icon={<FileText size={28} />}>
        Launch a profile to list and read its servers' resources from here.
      </NoLaunchView>
    );
  }

  const data: Listing | undefined = listing.data;
  const subs = subscribed ?? data?.subscribed ?? [];
  const resources = filterByText(data?.resources ?? [], query, (r) => [r.uri, r.name, r.title]);
  const templates = filterByText(data?.templates ?? [], query, (t) => [t.uriTemplate, t.name]);
  const current = selected ?? (resources[0] ? { kind: 'resource' as const, uri: resources[0].uri } : null);

  const toggleSubscription = async (uri: string, on: boolean): Promise<void> => {
    const out = await api.call('resources:subscribe', { launchId: launch.id, uri, subscribed: on });
    setSubscribed(out.subscribed);
  };

  return (
    <div className="view view-tools">
      <PageHeader
        title="Resources"
        subtitle={<>Read through the gateway of <b>{launch.profile}</b> as the window's own session: each read is an exchange in Traffic.</>}
        actions={<IconButton label="Reload resources" icon={<RefreshCw size={14} />} variant="secondary" onClick={listing.reload} />}
      />
      <div className="view-body">
        <SplitPane
          id="resources"
          initial={320}
          min={220}
          max={560}
          label="Resize resource list"
          first={
            <PickerList
              label="Resources and templates"
              noun="resources"
              query={query}
              onQuery={setQuery}
              error={listing.error}
              loading={listing.loading && !data}
              empty={!listing.loading && data && resources.length + templates.length === 0 ? (query.trim() ? `Nothing matches “${query}”.` : 'This launch offers no resources.') : null}
            >
              <PickerGroup title="Resources" count={resources.length}>
                {resources.map((r) => (
                  <PickerItem key={r.uri} active={current?.kind === 'resource' && current.uri === r.uri} onPick={() => setSelected({ kind: 'resource', uri: r.uri })}>
                    <span className="tool-item-name">{r.title ?? r.name}</span>
                    {subs.includes(r.uri) ? <BellRing size={12} aria-label="subscribed" /> : null}
                    <span className="tool-item-canon mono">{r.uri}</span>
                  </PickerItem>
                ))}
              </PickerGroup>
              <PickerGroup title="Templates" count={templates.length}>
                {templates.map((t) => (
                  <PickerItem key={t.uriTemplate} active={current?.kind === 'template' && current.uriTemplate === t.uriTemplate} onPick={() => setSelected({ kind: 'template', uriTemplate: t.uriTemplate })}>
                    <span className="tool-item-name">{t.title ?? t.name}</span>
                    <span className="tool-item-canon mono">{t.uriTemplate}</span>
                  </PickerItem>
                ))}
              </PickerGroup>
            </PickerList>
          }
          second={
            current ? (
              <ResourcePanel
                key={current.kind === 'resource' ? current.uri : current.uriTemplate}
                launchId={launch.id}
                selection={current}
                listing={data}
                subscribed={subs}
                updates={updates}
                onSubscribe={toggleSubscription}
              />
            ) : (
              <EmptyState icon={<FileText size={28} />} title="Pick a resource">Resources and templates of this launch's servers are listed on the left.</EmptyState>
            )
          }
        />
      </div>
    </div>
  );
}

interface PanelProps {
  launchId: string;
  selection: Selection;
  listing: Listing | undefined;
  subscribed: readonly string[];
  updates: ReadonlyMap<string, number[]>;
  onSubscribe: (uri: string, on: boolean) => Promise<void>;
}

function ResourcePanel({ launchId, selection, listing, subscribed, updates, onSubscribe }: PanelProps) {
  const api = useHostApi();
  const item = selection.kind === 'resource' ? listing?.resources.find((r) => r.uri === selection.uri) : listing?.templates.find((t) => t.uriTemplate === selection.uriTemplate);
  const vars = useMemo(() => (selection.kind === 'template' ? templateVariables(selection.uriTemplate) : []), [selection]);
  const [values, setValues] = useState<Record<string, string>>({});
  const uri = selection.kind === 'resource' ? selection.uri : expandTemplate(selection.uriTemplate, values);
  const [read, setRead] = useState<Read | null>(null);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const isSubscribed = subscribed.includes(uri);
  const seen = updates.get(uri) ?? [];

  const doRead = async (): Promise<void> => {
    setBusy(true);
    setFailure(null);
    try {
      setRead(await api.call('resources:read', { launchId, uri }));
    } catch (e) {
      setFailure(errorText(e));
    } finally {
      setBusy(false);
    }
  };
  const missing = vars.filter((v) => !values[v]);

  return (
    <section className="tool-panel scroll" aria-label={`Resource ${item?.name ?? uri}`}>
      <header className="tool-panel-head">
        <div>
          <h2 className="tool-title">{item?.title ?? item?.name ?? uri}</h2>
          <div className="tool-sub">
            <code className="mono">{selection.kind === 'resource' ? selection.uri : selection.uriTemplate}</code>
            {item?.mimeType ? <><span className="sep">·</span><span>{item.mimeType}</span></> : null}
            {selection.kind === 'resource' && typeof listing?.resources.find((r) => r.uri === uri)?.size === 'number' ? <><span className="sep">·</span><span>{formatBytes(listing.resources.find((r) => r.uri === uri)!.size!)}</span></> : null}
          </div>
        </div>
        <span className="spacer" />
        {selection.kind === 'template' ? <Badge>template</Badge> : null}
      </header>
      {item?.description ? <p className="tool-desc prewrap">{item.description}</p> : null}
      <form
        className="tool-form"
        aria-label={`Read ${uri}`}
        onSubmit={(e) => {
          e.preventDefault();
          if (missing.length === 0) void doRead();
        }}
      >
        {vars.map((v) => (
          <label key={v} className="sf-field">
            <span className="sf-label">{v}</span>
            <input className="input mono" aria-label={v} value={values[v] ?? ''} onChange={(e) => setValues({ ...values, [v]: e.target.value })} />
          </label>
        ))}
        {selection.kind === 'template' ? <p className="muted small">URI: <code className="mono">{uri}</code></p> : null}
        <div className="form-actions">
          <Button type="submit" variant="primary" icon={<Play size={13} />} busy={busy} disabled={missing.length > 0}>
            Read
          </Button>
          <Button
            variant="secondary"
            icon={isSubscribed ? <BellOff size={13} /> : <BellRing size={13} />}
            aria-pressed={isSubscribed}
            disabled={missing.length > 0}
            onClick={() => void onSubscribe(uri, !isSubscribed).catch((e: unknown) => setFailure(errorText(e)))}
          >
            {isSubscribed ? 'Unsubscribe' : 'Subscribe'}
          </Button>
          {missing.length > 0 ? <span className="muted">Fill in {missing.join(', ')}</span> : null}
        </div>
      </form>
      {seen.length > 0 ? (
        <Banner
          tone="info"
          title="Resource updated"
          actions={
            <Button size="sm" variant="ghost" icon={<RefreshCw size={13} />} onClick={() => void doRead()}>
              Read again
            </Button>
          }
        >
          The server said it changed {seen.length} time{seen.length === 1 ? '' : 's'}, last at {new Date(seen[0]!).toLocaleTimeString()}.
        </Banner>
      ) : null}
      {failure ? <Banner tone="danger" title="Could not read">{failure}</Banner> : null}
      {read ? <ReadResult read={read} /> : null}
    </section>
  );
}

function ReadResult({ read }: { read: Read }) {
  const contents = read.result?.contents ?? [];
  return (
    <ResultPanel title="Contents" label="Contents" failed={Boolean(read.error)} badge={read.error ? 'error' : `${contents.length} part${contents.length === 1 ? '' : 's'}`} exchange={read.exchange} error={read.error}>
      {contents.map((c, i) => (
        <ResultBlock key={i} label={<>contents[{i}] · <span className="mono">{c.uri}</span> · {c.mimeType ?? 'no type'} · {c.blob !== undefined ? 'blob' : 'text'}</>}>
          {c.text !== undefined ? <ResultText text={c.text} label={`Text of ${c.uri}`} copy="Copy text" /> : c.blob !== undefined ? <BlobContent blob={c.blob} mimeType={c.mimeType} uri={c.uri} /> : null}
        </ResultBlock>
      ))}
    </ResultPanel>
  );
}

/** A base64 blob: an image is shown; anything else by size, a text preview when it decodes as UTF-8, and a download. */
function BlobContent({ blob, mimeType, uri }: { blob: string; mimeType?: string; uri: string }) {
  const bytes = useMemo(() => {
    try {
      return Uint8Array.from(atob(blob), (ch) => ch.charCodeAt(0));
    } catch {
      return null;
    }
  }, [blob]);
  if (!bytes) return <p className="error-text">Not valid base64 ({blob.length} characters).</p>;
  const preview = (() => {
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(bytes.slice(0, 4096));
    } catch {
      return null;
    }
  })();
  const name = uri.split('/').pop() || 'resource.bin';
  return (
    <div>
      <p className="muted small">
        {formatBytes(bytes.length)} of binary data
        <Button size="sm" variant="ghost" onClick={() => downloadBytes(bytes, name, mimeType ?? 'application/octet-stream')}>
          Download
        </Button>
      </p>
      {mimeType?.startsWith('image/') ? <img className="resource-image" alt={`Image ${uri}`} src={`data:${mimeType};base64,${blob}`} /> : null}
      {preview !== null ? <pre className="code-block prewrap" aria-label={`Decoded blob of ${uri}`}>{preview}</pre> : null}
    </div>
  );
}
