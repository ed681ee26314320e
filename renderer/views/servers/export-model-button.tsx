// "Export model": the launch as a FIAM v0.2 YAML model (docs/fiam.md), offered as a download.
// With "include what was observed", interactions the audit store saw are marked executed, with
// their counts and the audit rows that prove them.
import { useState } from 'react';
import { Download } from 'lucide-react';
import { useHostApi } from '../../api/context';
import { Button } from '../../components/button';
import { useToast } from '../../components/toasts';
import { downloadText } from '../../lib/download';

export function ExportModelButton({ launchId }: { launchId: string }) {
  const api = useHostApi();
  const toast = useToast();
  const [observed, setObserved] = useState(true);
  const [busy, setBusy] = useState(false);
  const run = async (): Promise<void> => {
    setBusy(true);
    try {
      const { fileName, yaml } = await api.call('model:export', { launchId, observed });
      downloadText(yaml, fileName, 'application/yaml');
      toast.show({ tone: 'ok', title: `Exported ${fileName}` });
    } catch (e) {
      toast.error('Could not export the model', e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <span className="export-model">
      <label className="check" title="Mark interactions the audit store saw as executed, with counts and citations">
        <input type="checkbox" checked={observed} onChange={(e) => setObserved(e.target.checked)} /> observed
      </label>
      <Button onClick={() => void run()} busy={busy} icon={<Download size={14} />} title="Download a FIAM v0.2 model of this workspace (YAML)">
        Export model
      </Button>
    </span>
  );
}
