// Traffic's "Export HAR" (docs/ui-layout.md "HAR and curl"): the host rebuilds a HAR 1.2 log of
// one launch's HTTP exchanges (main/api/har-export.ts) and the window saves it. The launch is the
// one the launch filter keeps, else the only or newest running one.
import { useState } from 'react';
import { useHostApi } from '../../api/context';
import { downloadText } from '../../lib/download';
import type { LaunchSummary } from './traffic-view';

export function HarExportButton({ launches, sessions }: { launches: readonly LaunchSummary[]; sessions?: readonly string[] }) {
  const api = useHostApi();
  const [note, setNote] = useState<string | undefined>();
  const newest = [...launches].sort((a, b) => b.startedAt - a.startedAt)[0];
  const session = sessions?.length === 1 ? sessions[0] : newest?.id;
  const exportHar = async () => {
    if (!session) return;
    try {
      const out = await api.call('traffic:har', { session });
      downloadText(JSON.stringify(out.har, null, 2), out.fileName, 'application/json');
      setNote(`${out.entries} HTTP ${out.entries === 1 ? 'entry' : 'entries'}`);
    } catch (e) {
      setNote(`HAR failed: ${e instanceof Error ? e.message : String(e)}`);
    }
  };
  return (
    <>
      <button type="button" className="tb-btn" onClick={() => void exportHar()} disabled={!session} title="Save this launch's HTTP exchanges as a HAR file (the token is $GATEHOUSE_TOKEN)">
        Export HAR
      </button>
      {note ? (
        <span className="traffic-follow" role="status" aria-label="HAR export">
          {note}
        </span>
      ) : null}
    </>
  );
}
