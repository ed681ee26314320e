// The Secrets panel (docs/auth.md "The secret store"): the values behind `${secret:NAME}` in profiles, kept in the OS
// keychain (or the encrypted-file fallback, with its warning shown). Write-only from here: a
// value goes to the host once and is never sent back to any window; the list shows names only.
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { KeyRound, Trash2 } from 'lucide-react';
import { useHostApi } from '../../api/context';
import { Banner } from '../../components/banner';
import { Button } from '../../components/button';
import { EmptyState } from '../../components/empty-state';
import { PageHeader } from '../../components/page-header';
import { useToast } from '../../components/toasts';
import type { z } from 'zod';
import type { SecretStoreInfoSchema } from '../../../common/host-api';

type StoreInfo = z.infer<typeof SecretStoreInfoSchema>;

export function SecretsView() {
  const api = useHostApi();
  const toast = useToast();
  const [store, setStore] = useState<StoreInfo | undefined>();
  const [names, setNames] = useState<string[]>([]);
  const [name, setName] = useState('');
  const [value, setValue] = useState('');
  const [busy, setBusy] = useState(false);

  const refresh = useCallback(async () => {
    try {
      const r = await api.call('secrets:list', {});
      setStore(r.store);
      setNames(r.names);
    } catch (e) {
      toast.error('Could not read the secret store', e);
    }
  }, [api, toast]);

  useEffect(() => {
    void refresh();
  }, [refresh]);

  const save = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    try {
      await api.call('secrets:set', { name, value });
      toast.show({ tone: 'ok', title: `Stored ${name}`, detail: `Use it in a profile as \${secret:${name}}` });
      setName('');
      setValue('');
      await refresh();
    } catch (err) {
      toast.error(`Could not store ${name}`, err);
    } finally {
      setBusy(false);
    }
  };

  const remove = async (n: string) => {
    try {
      await api.call('secrets:delete', { name: n });
      await refresh();
    } catch (err) {
      toast.error(`Could not delete ${n}`, err);
    }
  };

  return (
    <div className="view view-secrets">
      <PageHeader title="Secrets" subtitle={store ? <>Kept in {store.description}</> : 'Values behind ${secret:NAME} in profiles'} />
      <div className="view-body scroll">
        {store?.warning ? <Banner tone="warn" title="No OS keychain on this machine">{store.warning}</Banner> : null}
        <form className="card secrets-form" onSubmit={(e) => void save(e)} aria-label="Add or replace a secret">
          <label className="field">
            <span className="field-label">Name</span>
            <input className="tb-input mono" value={name} onChange={(e) => setName(e.target.value)} placeholder="GITHUB_TOKEN" required pattern="[A-Za-z_][A-Za-z0-9_.\-]*" autoComplete="off" spellCheck={false} />
          </label>
          <label className="field">
            <span className="field-label">Value</span>
            <input className="tb-input mono" type="password" value={value} onChange={(e) => setValue(e.target.value)} required autoComplete="new-password" />
          </label>
          <Button type="submit" variant="primary" busy={busy} disabled={!name || !value}>
            Save
          </Button>
        </form>
        {names.length === 0 ? (
          <EmptyState icon={<KeyRound size={28} />} title="No secrets stored">
            Secrets you save here are used by profiles as <code className="mono">{'${secret:NAME}'}</code>.
          </EmptyState>
        ) : (
          <table className="table" aria-label="Stored secrets">
            <thead>
              <tr>
                <th>Name</th>
                <th>In a profile</th>
                <th className="actions-col"><span className="visually-hidden">Actions</span></th>
              </tr>
            </thead>
            <tbody>
              {names.map((n) => (
                <tr key={n}>
                  <td className="mono strong">{n}</td>
                  <td className="mono muted">{`\${secret:${n}}`}</td>
                  <td className="actions-col">
                    <Button size="sm" icon={<Trash2 size={13} />} onClick={() => void remove(n)} aria-label={`Delete ${n}`}>
                      Delete
                    </Button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </div>
    </div>
  );
}
