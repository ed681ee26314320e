// Choosing the era of an HTTP upstream's run (main/supervisor/upstream-era.ts says why and
// how it is remembered): a remembered new-era server is connected with its discover result
// (zero round trips); an unknown one, or an old-era verdict past its horizon, is probed once
// by the SDK v2 client; a remembered old-era server, a legacy SSE one and an `auth: oauth`
// one are left to the old-era path as today. What this returns is the run's client and port
// when the server speaks the new era, else undefined (and the old-era path runs).
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { ExchangeChannel } from '../protocol/exchange-channel';
import type { HttpSpec } from './http-upstream';
// The SDK v2 client (and its own copy of the protocol core) loads on the first HTTP upstream
// probed, not at every start: a stdio-only gateway never pays its memory.
import type { NewEraPort } from './new-era-client';
import { withTimeout } from './run-timing';
import type { ServerEraInfo, UpstreamClient } from './types';
import { OLD_ERA_HORIZON_MS, UpstreamEras } from './upstream-era';

export interface NewEraRun {
  client: UpstreamClient;
  port: NewEraPort;
  channel: ExchangeChannel;
  version: string;
  era: ServerEraInfo;
  /** The v2 client's connection closed (its transport's onclose belongs to the SDK). */
  onClosed(fn: () => void): void;
}

export interface NewEraRunContext {
  id: string;
  spec: HttpSpec;
  eras: UpstreamEras;
  /** A fresh channel for this run (recorded in Traffic like any other). */
  channel(): ExchangeChannel;
  log(line: string): void;
  onToolsChanged(): void;
}

/** What the old-era path is told when the server does not speak the new era: how that is known. */
export type OldEraVerdict = { old: 'remembered' | 'probed' | 'not-probed' };

/** The new-era run, or the old era's verdict (remembered when learnt now). */
export async function openNewEraRun(ctx: NewEraRunContext): Promise<NewEraRun | OldEraVerdict> {
  const { spec, eras } = ctx;
  // The v2 transport signs in differently (its own auth provider): OAuth upstreams stay old-era for now.
  if (spec.transport === 'sse' || spec.oauth) return { old: 'not-probed' };
  const rec = eras.get(ctx.id, spec.url);
  if (rec?.era === 'old' && !UpstreamEras.stale(rec)) return { old: 'remembered' };
  const prior = rec?.era === 'new' ? rec.discover : undefined;
  const { connectNewEra, newEraTransport } = await import('./new-era-client');
  const channel = ctx.channel();
  channel.attach(newEraTransport(spec) as unknown as Transport);
  let res: Awaited<ReturnType<typeof connectNewEra>>;
  try {
    res = await withTimeout(
      connectNewEra(channel, { prior, timeoutMs: spec.startupTimeoutMs, onToolsChanged: ctx.onToolsChanged }),
      spec.startupTimeoutMs,
      `server/discover did not answer within ${spec.startupTimeoutMs / 1000}s`,
    );
  } catch (err) {
    await channel.close().catch(() => {});
    if (prior) {
      // The remembered verdict stopped matching: forget it and probe again, now.
      eras.forget(ctx.id);
      ctx.log(`[gatehouse] the remembered new-era discovery no longer matches (${(err as Error).message}); probing again`);
      return openNewEraRun(ctx);
    }
    // The probe itself failed (a legacy SSE-only server, an outage): the old-era path says why.
    ctx.log(`[gatehouse] era probe failed (${(err as Error).message}); speaking 2025-11-25 as before`);
    return { old: 'not-probed' };
  }
  if (res.era === 'old') {
    eras.remember(ctx.id, { era: 'old', version: res.version ?? 'unknown', target: spec.url }, true);
    ctx.log(`[gatehouse] era probe: old era (${res.version ?? 'no version'}); remembered, not probed again before ${new Date(Date.now() + OLD_ERA_HORIZON_MS).toISOString().slice(0, 10)}`);
    return { old: 'probed' };
  }
  eras.remember(ctx.id, { era: 'new', version: res.version, target: spec.url, discover: res.discover }, !prior);
  if (!prior) ctx.log(`[gatehouse] era probe: new era (${res.version}); the discovery is remembered for the next start`);
  return { client: res.client, port: res.port, channel, version: res.version, era: { era: 'new', how: prior ? 'remembered' : 'probed' }, onClosed: res.onClosed };
}
