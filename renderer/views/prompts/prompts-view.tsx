// Prompts (docs/ui-layout.md "Resources and Prompts"): the active launch's prompts as an agent
// lists them, and prompts/get through the gateway as the window's own session with a form built
// from the prompt's argument list (MCP prompt arguments are strings; `required` ones must be
// filled). Each get is an exchange in Traffic.
import { useState } from 'react';
import { MessageSquareText, Play, RefreshCw } from 'lucide-react';
import type { CommandOutput } from '../../../common/host-api';
import { useHostApi } from '../../api/context';
import { Banner } from '../../components/banner';
import { Button, IconButton } from '../../components/button';
import { EmptyState } from '../../components/empty-state';
import { JsonView } from '../../components/json-view';
import { NoLaunchView } from '../../components/no-launch';
import { PageHeader } from '../../components/page-header';
import { filterByText } from '../../components/picker-filter';
import { PickerItem, PickerList } from '../../components/picker-list';
import { ResultBlock, ResultPanel, ResultText } from '../../components/result-panel';
import { SplitPane } from '../../components/split-pane';
import { errorText } from '../../components/toasts';
import { useCommand } from '../../components/use-command';
import { useAppState } from '../../state/app-context';
import { useStore } from '../../state/store';
import { promptArguments } from './prompt-form';

type Prompt = CommandOutput<'prompts:list'>[number];
type Got = CommandOutput<'prompts:get'>;

export function PromptsView() {
  const { launches } = useAppState();
  const launch = useStore(launches, (s) => s.launches.find((l) => l.id === s.activeId));
  const prompts = useCommand('prompts:list', launch ? { launchId: launch.id } : null);
  const [query, setQuery] = useState('');
  const [selected, setSelected] = useState<string | null>(null);

  if (!launch) {
    return (
      <NoLaunchView title="Prompts" icon={<MessageSquareText size={28} />}>
        Launch a profile to list and try its servers' prompts from here.
      </NoLaunchView>
    );
  }
  const list = filterByText(prompts.data ?? [], query, (p) => [p.name, p.title]);
  const prompt = list.find((p) => p.name === selected) ?? list[0] ?? null;

  return (
    <div className="view view-tools">
      <PageHeader
        title="Prompts"
        subtitle={<>Got through the gateway of <b>{launch.profile}</b> as the window's own session: each get is an exchange in Traffic.</>}
        actions={<IconButton label="Reload prompts" icon={<RefreshCw size={14} />} variant="secondary" onClick={prompts.reload} />}
      />
      <div className="view-body">
        <SplitPane
          id="prompts"
          initial={300}
          min={220}
          max={520}
          label="Resize prompt list"
          first={
            <PickerList
              label="Prompts"
              noun="prompts"
              query={query}
              onQuery={setQuery}
              error={prompts.error}
              loading={prompts.loading && !prompts.data}
              empty={!prompts.loading && prompts.data && list.length === 0 ? (query.trim() ? `No prompt matches “${query}”.` : 'This launch offers no prompts.') : null}
            >
              <ul>
                {list.map((p) => (
                  <PickerItem key={p.name} active={p.name === prompt?.name} onPick={() => setSelected(p.name)}>
                    <span className="tool-item-name mono">{p.name}</span>
                    {p.arguments?.length ? <span className="tool-item-canon">{p.arguments.length} argument{p.arguments.length === 1 ? '' : 's'}</span> : null}
                  </PickerItem>
                ))}
              </ul>
            </PickerList>
          }
          second={prompt ? <PromptPanel key={prompt.name} launchId={launch.id} prompt={prompt} /> : <EmptyState icon={<MessageSquareText size={28} />} title="Pick a prompt">Prompts of this launch's servers are listed on the left.</EmptyState>}
        />
      </div>
    </div>
  );
}

function PromptPanel({ launchId, prompt }: { launchId: string; prompt: Prompt }) {
  const api = useHostApi();
  const [values, setValues] = useState<Record<string, string>>({});
  const [showErrors, setShowErrors] = useState(false);
  const [busy, setBusy] = useState(false);
  const [got, setGot] = useState<Got | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const form = promptArguments(prompt.arguments ?? [], values);

  const get = async (): Promise<void> => {
    setShowErrors(true);
    if (form.missing.length > 0) return;
    setBusy(true);
    setFailure(null);
    try {
      setGot(await api.call('prompts:get', { launchId, name: prompt.name, arguments: form.arguments }));
    } catch (e) {
      setFailure(errorText(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="tool-panel scroll" aria-label={`Get ${prompt.name}`}>
      <header className="tool-panel-head">
        <div>
          <h2 className="tool-title mono">{prompt.name}</h2>
          {prompt.title ? <div className="tool-sub">{prompt.title}</div> : null}
        </div>
      </header>
      {prompt.description ? <p className="tool-desc prewrap">{prompt.description}</p> : null}
      <form
        className="tool-form"
        aria-label={`Arguments of ${prompt.name}`}
        onSubmit={(e) => {
          e.preventDefault();
          void get();
        }}
      >
        <span className="section-label">Arguments</span>
        {(prompt.arguments ?? []).length === 0 ? <p className="muted small">This prompt takes no arguments.</p> : null}
        {(prompt.arguments ?? []).map((a) => {
          const invalid = showErrors && form.missing.includes(a.name);
          return (
            <label key={a.name} className="sf-field">
              <span className="sf-label">
                {a.name}
                {a.required ? <span className="sf-required" aria-hidden="true"> *</span> : null}
              </span>
              <input
                className="input"
                aria-label={`${a.name}${a.required ? ' (required)' : ''}`}
                aria-invalid={invalid || undefined}
                aria-required={a.required || undefined}
                value={values[a.name] ?? ''}
                onChange={(e) => setValues({ ...values, [a.name]: e.target.value })}
              />
              {a.description ? <span className="sf-help muted small">{a.description}</span> : null}
              {invalid ? <span className="sf-error">required</span> : null}
            </label>
          );
        })}
        <div className="form-actions">
          <Button type="submit" variant="primary" icon={<Play size={13} />} busy={busy}>
            Get prompt
          </Button>
        </div>
      </form>
      {failure ? <Banner tone="danger" title="Could not get the prompt">{failure}</Banner> : null}
      {got ? <PromptResult got={got} /> : null}
    </section>
  );
}

function PromptResult({ got }: { got: Got }) {
  const messages = got.result?.messages ?? [];
  return (
    <ResultPanel title="Messages" label="Prompt messages" failed={Boolean(got.error)} badge={got.error ? 'error' : `${messages.length}`} exchange={got.exchange} error={got.error}>
      {got.result?.description ? <p className="muted">{got.result.description}</p> : null}
      {messages.map((m, i) => {
        const content = m.content as { type?: string; text?: string } | undefined;
        return (
          <ResultBlock key={i} label={<>{m.role} · {content?.type ?? 'content'}</>}>
            {content?.type === 'text' ? <ResultText text={content.text ?? ''} /> : <JsonView value={m.content} maxHeight={300} />}
          </ResultBlock>
        );
      })}
    </ResultPanel>
  );
}
