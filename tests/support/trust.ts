// Pre-approves a profile for tests that run Gatehouse as a subprocess (the in-process seam of
// ./trust-setup.ts does not reach them): the real launch identities, pinned through the real
// TrustStore into the test's own data directory, as `gatehouse trust accept` would. The
// servers' pins carry no program hashes: the subprocess pins what its command runs at its
// first start (main/trust/launch-consent.ts, pins made before program pinning), on its own PATH.
import { loadProfileFile } from '../../main/profiles/loader';
import { resolveProfile } from '../../main/profiles/resolve';
import { EnvSecretProvider } from '../../main/secrets/provider';
import { TrustStore } from '../../main/trust/pin-store';
import { identityHash, launchIdentity } from '../../main/trust/identity';
import { profileIdentity } from '../../main/trust/profile-identity';

export function pinProfile(dataDir: string, profileFile: string, env: NodeJS.ProcessEnv = process.env): void {
  const profile = resolveProfile(loadProfileFile(profileFile), { dataDir, env, secrets: new EnvSecretProvider(env) });
  const store = new TrustStore(dataDir);
  const own = profileIdentity(profile);
  store.approveProfile(profile.name, own, identityHash(own), 'test-support');
  for (const spec of profile.servers) {
    const identity = launchIdentity(spec, profile);
    store.approveLaunch(profile.name, spec.id, identity, identityHash(identity), 'test-support');
  }
}
