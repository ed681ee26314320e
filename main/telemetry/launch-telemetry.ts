// Which collector a launch exports to, and the wiring of a launch's gateway to it
// (docs/telemetry.md). The profile's `telemetry:` wins; otherwise the host's settings
// (GATEHOUSE_OTLP_ENDPOINT, GATEHOUSE_OTLP_HEADERS: `k=v,k2=v2` as OTEL_EXPORTER_OTLP_HEADERS
// spells them). Gatehouse's own variables, not OTEL_EXPORTER_OTLP_*: a collector configured for
// other programs on this machine must not start receiving a workspace's tool calls unasked.
import type { ApprovalBroker } from '../approvals/broker';
import type { Gateway } from '../gateway/gateway';
import type { ResolvedProfile, TelemetrySpec } from '../profiles/types';
import { appVersion } from '../paths';
import type { ExchangeTelemetry } from './exchange-telemetry';

export function telemetrySpecOf(profile: ResolvedProfile, env: NodeJS.ProcessEnv): TelemetrySpec | undefined {
  if (profile.telemetry) return profile.telemetry;
  const otlp = env.GATEHOUSE_OTLP_ENDPOINT?.trim();
  if (!otlp) return undefined;
  const headers: Record<string, string> = {};
  for (const pair of (env.GATEHOUSE_OTLP_HEADERS ?? '').split(',')) {
    const at = pair.indexOf('=');
    if (at <= 0) continue;
    const name = decodeURIComponent(pair.slice(0, at).trim());
    const value = decodeURIComponent(pair.slice(at + 1).trim());
    headers[name] = value;
    // Header values from the environment are credentials as a rule: never shown in clear.
    profile.redactor.add(`GATEHOUSE_OTLP_HEADERS.${name}`, value);
  }
  return { otlp, headers, serviceName: env.GATEHOUSE_OTLP_SERVICE_NAME?.trim() || 'gatehouse', metricsIntervalMs: 30_000 };
}

/** Wires a launch's gateway to its collector (what attachTelemetry resolves to). */
export type TelemetryAttach = (launchId: string, gateway: Gateway, broker: ApprovalBroker, log: (line: string) => void) => ExchangeTelemetry;

/**
 * Exports a launch's closed exchanges and call metrics; `undefined` when no collector is set.
 * The OpenTelemetry SDK (./exchange-telemetry.ts and its packages) is imported only then: a
 * launch without a collector never loads it (docs/gateway.md "Memory"). Resolves to the wiring,
 * which the host runs before the gateway takes its first message. `log` gets one line when the
 * collector starts refusing (not once per batch).
 */
export async function attachTelemetry(profile: ResolvedProfile, env: NodeJS.ProcessEnv): Promise<TelemetryAttach | undefined> {
  const spec = telemetrySpecOf(profile, env);
  if (!spec) return undefined;
  const { ExchangeTelemetry } = await import('./exchange-telemetry');
  return (launchId, gateway, broker, log) => wire(new ExchangeTelemetry(spec, {
    launchId,
    profile: profile.name,
    version: appVersion(),
    approvalsWaiting: () => broker.pending().filter((p) => p.session === launchId).length,
    redact: (text) => profile.redactor.redactString(text),
    onExportError: log,
  }), gateway);
}

function wire(telemetry: ExchangeTelemetry, gateway: Gateway): ExchangeTelemetry {
  gateway.exchanges.on('closed', (ex) => telemetry.exchange(ex));
  gateway.on('agent-session', (a) => (a.ended ? telemetry.agentEnded(a.id) : telemetry.agent(a.id, a.client)));
  return telemetry;
}
