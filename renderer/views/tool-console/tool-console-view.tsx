// Tool console: call any advertised tool of the active launch through the gateway, as the
// UI's own agent session (policy and approvals apply), with a form generated from the tool's
// input schema, and see the result; the exchange links to its row in Traffic.
import { useEffect, useMemo, useRef, useState } from 'react';
import { Braces, Play, Wrench } from 'lucide-react';
import { useHostApi } from '../../api/context';
import { Badge, toneFor } from '../../components/badge';
import { Button } from '../../components/button';
import { CopyButton } from '../../components/copy-button';
import { EmptyState } from '../../components/empty-state';
import { formatDuration } from '../../components/format-time';
import { JsonView, stringify } from '../../components/json-view';
import { NoLaunchView } from '../../components/no-launch';
import { PageHeader } from '../../components/page-header';
import { filterByText } from '../../components/picker-filter';
import { PickerGroup, PickerItem, PickerList } from '../../components/picker-list';
import { ResultBlock, ResultPanel, ResultText } from '../../components/result-panel';
import { SplitPane } from '../../components/split-pane';
import { errorText } from '../../components/toasts';
import { useCommand } from '../../components/use-command';
import { useShortcuts } from '../../components/shortcuts';
import { SchemaForm } from '../../lib/schema-form/schema-form';
import { errorsByPath, fieldsFromSchema, initialValue, toArguments, toJson, valueFromJson, type FormValue } from '../../lib/schema-form/model';
import { useAppState } from '../../state/app-context';
import { useStore } from '../../state/store';
import { draftKey, toolConsoleState, type CallResultState } from '../../state/tool-console-state';
import type { AdvertisedTool } from '../../state/types';
import { AnnotationBadges } from '../approvals/approval-card';

export function ToolConsoleView() {
  const { launches } = useAppState();
  const launch = useStore(launches, (s) => s.launches.find((l) => l.id === s.activeId));
  const tools = useCommand('tools:list', launch ? { launchId: launch.id } : null);
  // Kept outside the view (renderer/state/tool-console-state.ts): navigation and reloads keep it.
  const query = useStore(toolConsoleState.store, (s) => s.query);
  const selected = useStore(toolConsoleState.store, (s) => (launch ? s.selected[launch.id] : undefined)) ?? null;
  const setQuery = (q: string) => toolConsoleState.setQuery(q);
  const setSelected = (name: string) => launch && toolConsoleState.select(launch.id, name);

  const list = tools.data ?? [];
  const filtered = useMemo(() => filterTools(list, query), [list, query]);
  const grouped = useMemo(() => {
    const m = new Map<string, AdvertisedTool[]>();
    for (const t of filtered) m.set(t.server, [...(m.get(t.server) ?? []), t]);
    return [...m.entries()];
  }, [filtered]);
  // Until a person picks one, the first tool is shown: an empty panel teaches nothing.
  const tool = list.find((t) => t.name === selected) ?? filtered[0] ?? null;

  if (!launch) {
    return (
      <NoLaunchView title="Tool console" icon={<Wrench size={28} />}>
        Launch a profile to call its tools from here, without an agent.
      </NoLaunchView>
    );
  }

  return (
    <div className="view view-tools">
      <PageHeader title="Tool console" subtitle={<>Calls go through the gateway of <b>{launch.profile}</b> as the console's own session: policy and approvals apply.</>} />
      <div className="view-body">
        <SplitPane
          id="tool-console"
          initial={300}
          min={220}
          max={520}
          label="Resize tool list"
          first={
            <PickerList
              label="Tools"
              noun="tools"
              query={query}
              onQuery={setQuery}
              error={tools.error}
              loading={tools.loading && !tools.data}
              empty={!tools.loading && list.length > 0 && filtered.length === 0 ? <>No tool matches “{query}”.</> : null}
            >
              {grouped.map(([server, ts]) => (
                <PickerGroup key={server} title={server} count={ts.length}>
                  {ts.map((t) => (
                    <PickerItem key={t.name} active={t.name === tool?.name} onPick={() => setSelected(t.name)}>
                      <span className="tool-item-name mono">{t.name}</span>
                      {t.status ? <span className={`dot dot-${toneFor(t.status)}`} title={t.status.replace(/_/g, ' ')} aria-label={t.status.replace(/_/g, ' ')} /> : null}
                      {t.canonical !== t.name ? <span className="tool-item-canon mono">{t.canonical}</span> : null}
                    </PickerItem>
                  ))}
                </PickerGroup>
              ))}
            </PickerList>
          }
          second={tool ? <ToolPanel key={`${launch.id}:${tool.name}`} launchId={launch.id} tool={tool} /> : <EmptyState icon={<Wrench size={28} />} title="Pick a tool">{list.length ? `${list.length} tools advertised by this launch.` : 'This launch advertises no tools yet.'}</EmptyState>}
        />
      </div>
    </div>
  );
}

/**
 * Tools whose name, canonical name or title contains the query (descriptions are prose: "read"
 * would find create_directory through "already").
 */
export function filterTools<T extends Pick<AdvertisedTool, 'name' | 'canonical' | 'title'>>(list: readonly T[], query: string): T[] {
  return filterByText(list, query, (t) => [t.name, t.canonical, t.title]);
}

function ToolPanel({ launchId, tool }: { launchId: string; tool: AdvertisedTool }) {
  const api = useHostApi();
  const root = useMemo(() => fieldsFromSchema(tool.inputSchema), [tool.inputSchema]);
  const draft = useStore(toolConsoleState.store, (s) => s.drafts[draftKey(launchId, tool.name)]);
  const initial = useMemo(() => initialValue(root), [root]);
  const value: FormValue = draft?.value ?? initial;
  const setValue = (v: FormValue) => toolConsoleState.patch(launchId, tool.name, { value: v });
  const raw = draft?.raw ?? null;
  const setRaw = (r: string | null) => toolConsoleState.patch(launchId, tool.name, { raw: r });
  const [rawError, setRawError] = useState<string | null>(null);
  const [showErrors, setShowErrors] = useState(false);
  const calling = draft?.calling ?? false;
  const result = draft?.result ?? null;

  const { args, errors } = useMemo(() => toArguments(root, value), [root, value]);
  const errorMap = useMemo(() => (showErrors ? errorsByPath(errors) : new Map<string, string>()), [errors, showErrors]);

  const toggleRaw = (): void => {
    if (raw === null) {
      setRaw(JSON.stringify(toJson(root, value).value ?? {}, null, 2));
      setRawError(null);
      return;
    }
    try {
      const parsed: unknown = raw.trim() ? JSON.parse(raw) : {};
      setValue(valueFromJson(root, parsed));
      setRaw(null);
      setRawError(null);
    } catch (e) {
      setRawError(`Expected JSON: ${errorText(e)}`);
    }
  };

  const call = async (): Promise<void> => {
    let callArgs: Record<string, unknown>;
    if (raw !== null) {
      try {
        const parsed: unknown = raw.trim() ? JSON.parse(raw) : {};
        if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('expected a JSON object of arguments');
        callArgs = parsed as Record<string, unknown>;
        setRawError(null);
      } catch (e) {
        setRawError(`Expected JSON: ${errorText(e)}`);
        return;
      }
    } else {
      setShowErrors(true);
      if (errors.length) return;
      callArgs = args;
    }
    await toolConsoleState.call(api, launchId, tool.name, callArgs);
  };

  useShortcuts({ 'mod+enter': () => void call() });

  return (
    <section className="tool-panel scroll" aria-label={`Call ${tool.name}`}>
      <header className="tool-panel-head">
        <div>
          <h2 className="tool-title mono">{tool.name}</h2>
          <div className="tool-sub">
            {tool.title ? <><span>{tool.title}</span><span className="sep">·</span></> : null}
            <span className="muted">canonical</span> <code className="mono">{tool.canonical}</code>
            <span className="muted">· server</span> <b>{tool.server}</b>
          </div>
        </div>
        <span className="spacer" />
        {tool.status ? <Badge tone={toneFor(tool.status)} title="What the policy says before arguments are known">{tool.status.replace(/_/g, ' ')}</Badge> : null}
      </header>
      <AnnotationBadges annotations={tool.annotations} />
      {tool.description ? <p className="tool-desc prewrap">{tool.description}</p> : null}

      <form
        className="tool-form"
        aria-label={`Arguments of ${tool.name}`}
        onSubmit={(e) => {
          e.preventDefault();
          void call();
        }}
      >
        <div className="form-toolbar">
          <span className="section-label">Arguments</span>
          <span className="spacer" />
          <Button size="sm" variant="ghost" icon={<Braces size={13} />} onClick={toggleRaw} aria-pressed={raw !== null}>
            {raw === null ? 'Edit as JSON' : 'Back to form'}
          </Button>
        </div>
        {raw !== null ? (
          <>
            <textarea className="input mono raw-json" aria-label="Arguments as JSON" value={raw} onChange={(e) => setRaw(e.target.value)} rows={12} spellCheck={false} aria-invalid={rawError ? true : undefined} />
            {rawError ? <p className="sf-error">{rawError}</p> : null}
          </>
        ) : (
          <SchemaForm field={root} value={value} onChange={setValue} errors={errorMap} />
        )}
        <div className="form-actions">
          <Button type="submit" variant="primary" icon={<Play size={13} />} busy={calling} shortcut="Ctrl+↵">
            Call
          </Button>
          {showErrors && errors.length && raw === null ? <span className="sf-error" role="alert">{errors.length} field{errors.length === 1 ? '' : 's'} to fix</span> : null}
          {calling ? <span className="muted">Waiting for the gateway (an approval may be pending in the tray)…</span> : null}
        </div>
      </form>

      {result ? <CallResult result={result} /> : null}
    </section>
  );
}

function CallResult({ result }: { result: CallResultState }) {
  const ref = useRef<HTMLElement>(null);
  // The form can be long: bring each new result into view. (A block body: newer Chromium returns
  // a Promise from scrollIntoView, which React would take for the effect's cleanup and call.)
  useEffect(() => {
    ref.current?.scrollIntoView({ block: 'nearest', behavior: 'smooth' });
  }, [result]);
  const r = result.out?.result;
  const failed = Boolean(result.error || result.out?.error || r?.isError);
  const exchange = result.out?.exchange;
  const content = (r?.content ?? []) as Array<Record<string, unknown>>;
  return (
    <ResultPanel
      ref={ref}
      title="Result"
      label="Result"
      failed={failed}
      badge={failed ? (r?.isError ? 'isError' : 'error') : 'ok'}
      meta={<span className="muted small">{formatDuration(result.ms)}</span>}
      exchange={exchange}
      actions={r ? <CopyButton text={stringify(r)} label="Copy result" /> : null}
      error={result.error || result.out?.error}
    >
      {r?.structuredContent ? (
        <ResultBlock label="structuredContent">
          <JsonView value={r.structuredContent} maxHeight={420} label="Structured content" />
        </ResultBlock>
      ) : null}
      {content.map((c, i) => (
        <ResultBlock key={i} label={<>content[{i}] · {String(c.type ?? 'unknown')}</>}>
          {c.type === 'text' ? (
            <ResultText text={String(c.text ?? '')} error={r?.isError} />
          ) : c.type === 'image' || c.type === 'audio' ? (
            <p className="muted">{String(c.type)} · {String(c.mimeType ?? 'unknown type')} · {typeof c.data === 'string' ? `${Math.round((c.data.length * 3) / 4 / 1024)} KB` : ''}</p>
          ) : (
            <JsonView value={c} maxHeight={300} />
          )}
        </ResultBlock>
      ))}
      {r && !r.structuredContent && content.length === 0 ? <p className="muted">The tool returned no content.</p> : null}
    </ResultPanel>
  );
}
