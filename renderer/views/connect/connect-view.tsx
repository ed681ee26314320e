// Connect an agent: the gateway URL and ready-to-paste configuration per client. The token is
// fetched only when a person clicks Reveal or Copy (connect:token), never with the configs,
// and the configs themselves reference it through an environment variable.
import { useState } from 'react';
import { Eye, EyeOff, KeyRound, Plug } from 'lucide-react';
import { useHostApi } from '../../api/context';
import { Banner } from '../../components/banner';
import { Button } from '../../components/button';
import { CopyButton } from '../../components/copy-button';
import { NoLaunchView } from '../../components/no-launch';
import { PageHeader } from '../../components/page-header';
import { Tabs } from '../../components/tabs';
import { errorText, useToast } from '../../components/toasts';
import { useCommand } from '../../components/use-command';
import { useAppState } from '../../state/app-context';
import { useStore } from '../../state/store';

export function ConnectView() {
  const api = useHostApi();
  const toast = useToast();
  const { launches } = useAppState();
  const launch = useStore(launches, (s) => s.launches.find((l) => l.id === s.activeId));
  const [transport, setTransport] = useState<'http' | 'stdio' | undefined>(undefined);
  const configs = useCommand('connect:configs', launch ? { launchId: launch.id, ...(transport ? { transport } : {}) } : null);
  const [tab, setTab] = useState<string>('');
  const [token, setToken] = useState<string | null>(null);
  const [revealing, setRevealing] = useState(false);

  if (!launch) {
    return (
      <NoLaunchView title="Connect an agent" icon={<Plug size={28} />}>
        Launch a profile: its gateway is what an agent connects to.
      </NoLaunchView>
    );
  }

  const fetchToken = async (): Promise<string> => (await api.call('connect:token', { launchId: launch.id })).token;
  const reveal = async (): Promise<void> => {
    if (token !== null) {
      setToken(null);
      return;
    }
    setRevealing(true);
    try {
      setToken(await fetchToken());
    } catch (e) {
      toast.error('Could not read the gateway token', e);
    } finally {
      setRevealing(false);
    }
  };

  const data = configs.data;
  const url = data?.url ?? launch.gatewayUrl;
  const list = data?.configs ?? [];
  const current = list.find((c) => c.client === tab) ?? list[0];

  return (
    <div className="view view-connect">
      <PageHeader title="Connect an agent" subtitle={<>Point any MCP client at the governed gateway of <b>{launch.profile}</b>. Every call goes through its policy and shows up in Traffic.</>} />
      <div className="view-body scroll">
        <section className="card connect-endpoint" aria-label="Gateway endpoint">
          <div className="field-row">
            <span className="field-label">Gateway URL</span>
            {url ? (
              <>
                <code className="mono endpoint-url">{url}</code>
                <CopyButton text={url} label="Copy URL" />
              </>
            ) : (
              <span className="muted">This launch serves no HTTP endpoint; use the stdio form (<code>gatehouse gateway --profile {launch.profile}</code>).</span>
            )}
          </div>
          <div className="field-row">
            <span className="field-label">Bearer token</span>
            <code className="mono endpoint-token" aria-live="polite">{token ?? '•'.repeat(32)}</code>
            <Button size="sm" icon={token === null ? <Eye size={14} /> : <EyeOff size={14} />} onClick={() => void reveal()} busy={revealing}>
              {token === null ? 'Reveal token' : 'Hide token'}
            </Button>
            <CopyButton get={fetchToken} label="Copy token" onError={(e) => toast.error('Could not copy the token', e)} />
          </div>
          <p className="muted small">
            <KeyRound size={12} aria-hidden="true" /> The configurations below read the token from <code className="mono">${data?.tokenEnv ?? 'GATEHOUSE_TOKEN'}</code>; export it in the agent's shell. The token is never shown in traffic, logs or the audit trail.
          </p>
        </section>

        {launch.notices?.map((n) => (
          <Banner key={n} tone="warn" title="The gateway moved">
            {n}
          </Banner>
        ))}
        {configs.error ? <Banner tone="danger" title="Could not build client configurations">{errorText(configs.error)}</Banner> : null}
        {configs.loading && !data ? <p className="muted pad">Loading configurations…</p> : null}
        {current ? (
          <Tabs label="Client" items={list.map((c) => ({ id: c.client, label: c.label }))} value={current.client} onChange={setTab}>
            <div className="config-panel">
              <div className="field-row">
                <span className="field-label">Where</span>
                <code className="mono">{current.where}</code>
                <span className="spacer" />
                <CopyButton text={current.text} label={`Copy ${current.format.toUpperCase()}`} />
              </div>
              <div className="field-row">
                <span className="field-label">Transport</span>
                <Button size="sm" variant={current.transport === 'http' ? 'primary' : 'secondary'} disabled={!url} onClick={() => setTransport('http')}>HTTP</Button>
                <Button size="sm" variant={current.transport === 'stdio' ? 'primary' : 'secondary'} onClick={() => setTransport('stdio')}>stdio</Button>
                <span className="spacer" />
                <CopyButton text={current.command} label="Copy CLI command" />
              </div>
              <p className="muted small">
                Same text from the command line: <code className="mono">{current.command}</code> (add <code className="mono">--write</code> to merge it into {current.where}).
              </p>
              {current.run ? (
                <div className="field-row">
                  <span className="field-label">Run</span>
                  <code className="mono">{current.run}</code>
                  <span className="spacer" />
                  <CopyButton text={current.run} label="Copy run command" />
                </div>
              ) : null}
              <pre className="code-block config-text" tabIndex={0} aria-label={`${current.label} configuration`}>{current.text}</pre>
              {current.notes.length ? (
                <ul className="notes">
                  {current.notes.map((n, i) => <li key={i}>{n}</li>)}
                </ul>
              ) : null}
            </div>
          </Tabs>
        ) : null}
      </div>
    </div>
  );
}
