// A real gateway (Host over Streamable HTTP on 127.0.0.1, a fixed token, its own temp data dir)
// in front of a fixture server that prints its URL (fixture-url.ts), with every exchange kept
// as it closed: the set-up of the tests that drive one upstream fixture through the gateway with
// agents of their own. Each call is its own temp dir, fixture process and Host.
import path from 'node:path';
import type { Exchange } from '../../main/gateway/exchanges';
import { Host, type Launch } from '../../main/host';
import { startFixtureUrl, type FixtureServer } from './fixture-url';
import { tempDir, writeProfile } from './temp';

export interface FixtureGateway {
  fixture: FixtureServer;
  host: Host;
  launch: Launch;
  /** Every exchange that closed, by id, copied as it was when it closed. */
  closed: Map<string, Exchange>;
  /** Shuts the host down, stops the fixture, removes the temp dir. */
  stop(): Promise<void>;
}

export interface FixtureGatewayOptions {
  /** Prefix of the temp dir (names the test in a leftover folder). */
  tempPrefix: string;
  /** The fixture, relative to the repository root, e.g. `tests/fixtures/conformance-next/server.mjs`. */
  fixture: string;
  /** The profile YAML, given the fixture's URL. */
  profile: (url: string) => string;
  token: string;
}

export async function launchFixtureGateway(opts: FixtureGatewayOptions): Promise<FixtureGateway> {
  const tmp = tempDir(opts.tempPrefix);
  let fixture: FixtureServer | undefined;
  let host: Host | undefined;
  const stop = async () => {
    await host?.shutdown();
    fixture?.stop();
    tmp.cleanup();
  };
  try {
    fixture = await startFixtureUrl(opts.fixture);
    host = new Host({ dataDir: path.join(tmp.dir, 'data') });
    const launch = await host.launch(writeProfile(tmp.dir, opts.profile(fixture.url)), { httpPort: 0, token: opts.token });
    const closed = new Map<string, Exchange>();
    launch.gateway.exchanges.on('closed', (e) => closed.set(e.id, { ...e }));
    return { fixture, host, launch, closed, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
