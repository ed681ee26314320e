// Sign-in of an `auth: oauth` server (docs/auth.md "Signing in"): "sign-in needed" with a Sign in button, the
// authorization link when the shell could not open the system browser itself (the headless
// shell), who is signed in until when, and Sign out. Tokens never reach the window: only the
// state, the issuer and the expiry do (common/host-api.ts AuthStatusSchema).
import { useEffect, useState } from 'react';
import { KeyRound, LogIn, LogOut } from 'lucide-react';
import { useHostApi } from '../../api/context';
import { Banner } from '../../components/banner';
import { Button } from '../../components/button';
import { Timestamp } from '../../components/timestamp';
import { useToast } from '../../components/toasts';
import type { LaunchSummary, ServerStatus } from '../../state/types';

export function ServerSignIn({ launch, server: s }: { launch: LaunchSummary; server: ServerStatus }) {
  const api = useHostApi();
  const toast = useToast();
  const [busy, setBusy] = useState<'in' | 'out' | undefined>();
  const [link, setLink] = useState<string | undefined>();
  const auth = s.auth;
  useEffect(() => {
    if (auth?.state === 'signed-in') setLink(undefined);
  }, [auth?.state]);
  if (!auth) return null;
  const ref = { launchId: launch.id, serverId: s.id };
  const signIn = async () => {
    setBusy('in');
    try {
      const r = await api.call('auth:signIn', ref);
      if (r.authorizationUrl && !r.opened) setLink(r.authorizationUrl);
      else if (r.opened) toast.show({ tone: 'info', title: `Continue signing in to ${s.id} in your browser` });
    } catch (e) {
      toast.error(`Could not start signing in to ${s.id}`, e);
    } finally {
      setBusy(undefined);
    }
  };
  const signOut = async () => {
    setBusy('out');
    try {
      const r = await api.call('auth:signOut', ref);
      toast.show({ tone: 'ok', title: r.removed ? `Signed out of ${s.id}` : `${s.id} was not signed in` });
    } catch (e) {
      toast.error(`Could not sign out of ${s.id}`, e);
    } finally {
      setBusy(undefined);
    }
  };

  if (auth.state === 'signed-in') {
    return (
      <div className="detail-block server-auth" aria-label={`Sign-in of ${s.id}`}>
        <div className="section-label">
          <KeyRound size={13} aria-hidden="true" /> Signed in
        </div>
        <p className="muted">
          {auth.issuer ? <>with <span className="mono">{auth.issuer}</span></> : 'with OAuth'}
          {auth.expiresAt ? <> · token until <Timestamp ts={auth.expiresAt} />{auth.hasRefreshToken ? ', refreshed automatically' : ''}</> : null}
          {auth.scope ? <> · scope <span className="mono">{auth.scope}</span></> : null}
        </p>
        <Button size="sm" icon={<LogOut size={13} />} onClick={() => void signOut()} busy={busy === 'out'}>
          Sign out
        </Button>
      </div>
    );
  }

  const signingIn = auth.state === 'signing-in';
  return (
    <Banner
      tone="warn"
      title={signingIn ? `Signing in to ${s.id}…` : `Sign-in needed for ${s.id}`}
      actions={
        <Button size="sm" variant="primary" icon={<LogIn size={13} />} onClick={() => void signIn()} busy={busy === 'in'} disabled={signingIn && !link}>
          Sign in
        </Button>
      }
    >
      <div className="muted">
        {auth.reason ? `${auth.reason.replace(/\.$/, '')}.` : 'This server asks Gatehouse to sign in with OAuth.'} Agents reach it through the gateway once you have signed in; they never see its token.
      </div>
      {link ? (
        <div>
          Open this address to sign in:{' '}
          <a className="mono wrap" href={link} target="_blank" rel="noreferrer noopener" data-testid="sign-in-link">
            {link}
          </a>
        </div>
      ) : null}
    </Banner>
  );
}

/** Mounted once in the app: a notice when a sign-in expired and could not be refreshed. */
export function AuthExpiryNotices() {
  const api = useHostApi();
  const toast = useToast();
  useEffect(
    () =>
      api.on('auth:expired', (e) =>
        toast.show({ tone: 'warn', title: `Sign in to ${e.serverId} again`, detail: `${e.reason}. Open Servers and click Sign in.` }),
      ),
    [api, toast],
  );
  return null;
}
