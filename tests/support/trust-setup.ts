// vitest setup file (vitest.config.ts `setupFiles`): tests launch many profiles in-process, and
// launch consent (docs/trust.md) would keep every server of a fresh temp data dir stopped. This
// approves a server that has NO pin at all, through the real TrustStore (a real pin file in the
// test's data dir, a real audit row `by: test-setup`); a changed identity still asks. The trust
// tests turn it off (setTestApprover(undefined)). Subprocess tests write pins with ./trust.ts.
import { setTestApprover } from '../../main/trust/launch-consent';

setTestApprover('test-setup');
