// OpenTelemetry export of a launch (docs/telemetry.md): one span per exchange, with the MCP
// semantic conventions (`mcp.method.name`, `mcp.session.id`, `gen_ai.tool.name`…) and
// Gatehouse's own decision, decider, outcome and server; and call metrics (calls, denials, a
// latency histogram, approvals waiting). Spans are made when an exchange closes, from the
// exchange's own fields (never its arguments or results), and leave through the SDK's batch
// processor and periodic reader: the protocol path only appends to an in-memory queue.
// Nothing here runs unless the profile (or the host's settings) names a collector.
import { SpanKind, SpanStatusCode, type Attributes, type Counter, type Histogram } from '@opentelemetry/api';
import { OTLPMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, BatchSpanProcessor, type SpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import type { Exchange } from '../gateway/exchanges';
import type { TelemetrySpec } from '../profiles/types';

export interface TelemetryContext {
  launchId: string;
  profile: string;
  version: string;
  /** Approvals of this launch waiting for a person, read when metrics are collected. */
  approvalsWaiting(): number;
  /** Free text an exchange keeps (reason, error) passes through this before it leaves. */
  redact(text: string): string;
  /** Told once per failure streak (a collector that is down), never per span. */
  onExportError?(message: string): void;
}

/** How long a stopping launch waits for the last batch before giving up on it. */
const SHUTDOWN_WAIT_MS = 3_000;
/** The OTLP request timeout: a dead collector must not hold batches for long. */
const EXPORT_TIMEOUT_MS = 5_000;
/** Outcomes that make a span's status ERROR (a denial is a decision, not a failure). */
const FAILED = new Set(['error', 'timeout', 'aborted', 'unavailable']);

export class ExchangeTelemetry {
  private readonly tracer: BasicTracerProvider;
  private readonly meter: MeterProvider;
  private readonly calls: Counter;
  private readonly denials: Counter;
  private readonly duration: Histogram;
  private readonly agents = new Map<string, { name?: string; version?: string }>();
  private failing = false;
  private stopped?: Promise<void>;
  /** The collector's base URL, as configured. */
  readonly endpoint: string;

  constructor(
    spec: TelemetrySpec,
    private readonly ctx: TelemetryContext,
  ) {
    const base = spec.otlp.replace(/\/+$/, '');
    this.endpoint = base;
    const resource = resourceFromAttributes({
      'service.name': spec.serviceName,
      'service.version': ctx.version,
      'gatehouse.profile': ctx.profile,
      'gatehouse.launch.id': ctx.launchId,
    });
    const traces = this.watched(new OTLPTraceExporter({ url: `${base}/v1/traces`, headers: spec.headers, timeoutMillis: EXPORT_TIMEOUT_MS }));
    this.tracer = new BasicTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(traces, { scheduledDelayMillis: 1_000, maxQueueSize: 4_096 })] });
    const metrics = new OTLPMetricExporter({ url: `${base}/v1/metrics`, headers: spec.headers, timeoutMillis: EXPORT_TIMEOUT_MS });
    this.meter = new MeterProvider({
      resource,
      readers: [new PeriodicExportingMetricReader({ exporter: metrics, exportIntervalMillis: spec.metricsIntervalMs, exportTimeoutMillis: Math.min(EXPORT_TIMEOUT_MS, spec.metricsIntervalMs) })],
    });
    const m = this.meter.getMeter('gatehouse');
    this.calls = m.createCounter('gatehouse.calls', { description: 'Exchanges closed, by method, tool, server, decision and outcome.' });
    this.denials = m.createCounter('gatehouse.denials', { description: 'Calls denied, by tool and who decided (rule, person, timeout…).' });
    this.duration = m.createHistogram('mcp.server.operation.duration', { unit: 's', description: 'From the request arriving at the gateway to its answer.' });
    m.createObservableGauge('gatehouse.approvals.waiting', { description: 'Approvals waiting for a person.' }).addCallback((r) => r.observe(ctx.approvalsWaiting()));
  }

  /** The client an agent session said it is (`clientInfo`), for the spans of its calls. */
  agent(id: string, client: { name?: string; version?: string } | undefined): void {
    if (client) this.agents.set(id, client);
  }

  agentEnded(id: string): void {
    this.agents.delete(id);
  }

  /** A closed exchange: its span and its metrics. */
  exchange(ex: Exchange): void {
    if (this.stopped) return;
    const attributes = this.attributesOf(ex);
    const end = ex.answeredAt ?? Date.now();
    const span = this.tracer
      .getTracer('gatehouse')
      .startSpan(ex.tool && ex.method === 'tools/call' ? `${ex.method} ${ex.tool}` : ex.method, { kind: ex.kind === 'call' ? SpanKind.SERVER : SpanKind.CLIENT, startTime: ex.receivedAt, attributes });
    if (ex.outcome && FAILED.has(ex.outcome)) span.setStatus({ code: SpanStatusCode.ERROR, ...(ex.error ? { message: this.ctx.redact(ex.error) } : {}) });
    span.end(end);
    const metric: Attributes = {
      'mcp.method.name': ex.method,
      ...(ex.tool ? { 'gen_ai.tool.name': ex.tool } : {}),
      ...(ex.server ? { 'gatehouse.server': ex.server } : {}),
      ...(ex.decision ? { 'gatehouse.decision': ex.decision } : {}),
      'gatehouse.outcome': ex.outcome ?? 'unknown',
    };
    this.calls.add(1, metric);
    if (ex.outcome === 'denied') this.denials.add(1, { ...(ex.tool ? { 'gen_ai.tool.name': ex.tool } : {}), 'gatehouse.decider': ex.decidedBy ?? 'gateway' });
    this.duration.record(Math.max(0, end - ex.receivedAt) / 1000, {
      'mcp.method.name': ex.method,
      ...(ex.tool ? { 'gen_ai.tool.name': ex.tool } : {}),
      ...(ex.outcome && ex.outcome !== 'ok' ? { 'error.type': ex.outcome } : {}),
    });
  }

  private attributesOf(ex: Exchange): Attributes {
    const agent = ex.agentSession ? this.agents.get(ex.agentSession) : undefined;
    const a: Attributes = {
      'mcp.method.name': ex.method,
      'gatehouse.exchange.id': ex.id,
      'gatehouse.outcome': ex.outcome ?? 'unknown',
    };
    const set = (k: string, v: string | number | undefined) => {
      if (v !== undefined) a[k] = v;
    };
    set('mcp.session.id', ex.agentSession);
    set('mcp.protocol.version', ex.agentEra);
    set('jsonrpc.request.id', ex.downstreamId === undefined ? undefined : String(ex.downstreamId));
    if (ex.method === 'tools/call' && ex.tool) {
      a['gen_ai.tool.name'] = ex.tool;
      a['gen_ai.operation.name'] = 'execute_tool';
    }
    set('gatehouse.tool.advertised', ex.advertised);
    set('gatehouse.server', ex.server);
    set('gatehouse.decision', ex.decision);
    set('gatehouse.decider', ex.decidedBy);
    set('gatehouse.rule', ex.rule);
    set('gatehouse.answered_by', ex.answeredBy);
    set('gatehouse.reason', ex.reason === undefined ? undefined : this.ctx.redact(ex.reason));
    set('gatehouse.parent_exchange', ex.parent);
    set('gatehouse.upstream.protocol.version', ex.upstreamEra);
    set('gatehouse.request.bytes', ex.requestBytes);
    set('gatehouse.response.bytes', ex.responseBytes);
    set('gatehouse.agent.name', agent?.name);
    set('gatehouse.agent.version', agent?.version);
    if (ex.outcome && ex.outcome !== 'ok' && ex.outcome !== 'denied') a['error.type'] = ex.outcome;
    return a;
  }

  /** Flushes what is queued (bounded: a collector that is down does not hold the stop). */
  shutdown(): Promise<void> {
    this.stopped ??= Promise.race([
      Promise.allSettled([this.tracer.shutdown(), this.meter.shutdown()]).then(() => undefined),
      new Promise<void>((r) => setTimeout(r, SHUTDOWN_WAIT_MS).unref()),
    ]);
    return this.stopped;
  }

  /** The exporter with its failures told once per streak (the SDK's own logger is silent by default). */
  private watched(exporter: SpanExporter): SpanExporter {
    const ctx = this.ctx;
    return {
      export: (spans: ReadableSpan[], done) =>
        exporter.export(spans, (result) => {
          const failed = result.code !== 0;
          if (failed && !this.failing) ctx.onExportError?.(`telemetry: the collector did not take ${spans.length} span(s): ${ctx.redact(String(result.error?.message ?? 'unknown error'))}`);
          this.failing = failed;
          done(result);
        }),
      shutdown: () => exporter.shutdown(),
      forceFlush: () => exporter.forceFlush?.() ?? Promise.resolve(),
    };
  }
}
