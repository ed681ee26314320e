// A server's tools with the trifecta guard's marks (docs/data.md "The trifecta guard"): which
// tools read private data, bring in untrusted content, or can send data out, as small badges in
// the Servers view. From `tools:list` (the marks of the capabilities report); tools with no
// mark are not listed.
import { useEffect } from 'react';
import { Badge } from '../../components/badge';
import { useCommand } from '../../components/use-command';
import type { AdvertisedTool } from '../../state/types';

type Mark = NonNullable<AdvertisedTool['flowMarks']>[number];

const MARK: Record<Mark, { tone: 'info' | 'warn' | 'danger'; title: string }> = {
  private: { tone: 'info', title: 'reads private data: a session that calls it is labelled private' },
  untrusted: { tone: 'warn', title: 'brings in untrusted content: a session that calls it is labelled untrusted' },
  exfil: { tone: 'danger', title: 'can send data out: held or denied in a session that is both private and untrusted' },
};

export function FlowMarkBadges({ marks }: { marks: readonly Mark[] | undefined }) {
  if (!marks?.length) return null;
  return (
    <span aria-label={`Flow marks: ${marks.join(', ')}`}>
      {marks.map((m) => (
        <Badge key={m} tone={MARK[m].tone} title={MARK[m].title}>
          {m}
        </Badge>
      ))}
    </span>
  );
}

export function ServerFlowMarks({ launchId, server, toolCount }: { launchId: string; server: string; toolCount: number | undefined }) {
  const tools = useCommand('tools:list', { launchId });
  // The surface changes as the server becomes ready or lists new tools: read it again then.
  const { reload } = tools;
  useEffect(() => {
    if (toolCount !== undefined) reload();
  }, [toolCount, reload]);
  const marked = (tools.data ?? []).filter((t) => t.server === server && t.flowMarks?.length);
  if (marked.length === 0) return null;
  return (
    <div className="detail-block">
      <div className="section-label">Flow marks</div>
      <ul className="plain-list" aria-label={`Flow marks of ${server}'s tools`}>
        {marked.map((t) => (
          <li key={t.canonical}>
            <span className="mono">{t.name}</span> <FlowMarkBadges marks={t.flowMarks} />
          </li>
        ))}
      </ul>
    </div>
  );
}
