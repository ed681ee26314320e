import { afterEach, describe, expect, it } from 'vitest';
import { forgetSandboxAvailability, sandboxAvailability, sandboxProbes } from './availability';

afterEach(() => forgetSandboxAvailability());

const missing = { GATEHOUSE_BWRAP: '/nonexistent/bwrap', GATEHOUSE_LANDLOCK: '/nonexistent/gatehouse-landlock' };

describe('sandboxAvailability: which kind this machine gives', () => {
  it('an unknown GATEHOUSE_SANDBOX_KIND fails closed and names what it expected', () => {
    expect(sandboxAvailability({ ...missing, GATEHOUSE_SANDBOX_KIND: 'off' }, 'linux')).toEqual({
      ok: false,
      reason: "GATEHOUSE_SANDBOX_KIND must be bubblewrap or landlock, found 'off'",
      fix: 'unset GATEHOUSE_SANDBOX_KIND or set it to bubblewrap or landlock',
    });
  });

  it('neither kind: both reasons, the bubblewrap fix, and the way to run unconfined on purpose', () => {
    const r = sandboxAvailability(missing, 'linux');
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.reason).toBe(
      'bubblewrap not found at /nonexistent/bwrap; and the reduced landlock sandbox is not available either: its launcher was not built (/nonexistent/gatehouse-landlock is missing: `npm install` builds it with a C compiler, scripts/build-native.mjs)',
    );
    expect(r.fix).toMatch(/apt-get install bubblewrap.*sandbox: off/);
  });

  it('sandboxProbes reports each probe and the selection, for gatehouse doctor', () => {
    const p = sandboxProbes(missing);
    expect(p.bubblewrap).toMatchObject({ path: '/nonexistent/bwrap', ok: false, reason: 'bubblewrap not found at /nonexistent/bwrap' });
    expect(p.landlock).toMatchObject({ launcher: '/nonexistent/gatehouse-landlock', ok: false });
    expect(p.selected.ok).toBe(false);
  });
});
