/**
 * The gateway's metrics in the Prometheus text format, on prom-client with a
 * registry of its own (never the global one: two gateways in one process,
 * as in the tests, count apart). The pipeline tells it of each finished call
 * through the `CallMetrics` port; the gauges (connection health, live
 * sessions) are read when scraped. Every name starts `portcullis_`.
 *
 * Label values are bounded: a method from a closed list, a connection's
 * name (chosen by the operator; past `CONNECTION_LABELS_MAX` distinct names
 * the rest count as `other`), an action class, a reason code. Never a tool
 * name, an argument, or a name a remote server chose.
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { Connection, ConnectionHealth } from '../../core/model/governance.ts';
import type { CallMetrics, CallRecord } from '../../core/ports/telemetry.ts';

export interface MetricsSources {
  /** MCP sessions this process holds now. */
  liveSessions(): number;
  /** Every connection, with its health (read at each scrape). */
  connections(): Promise<readonly Connection[]>;
}

/** Distinct connection names a label takes before the rest count as `other`. */
export const CONNECTION_LABELS_MAX = 500;

const HEALTH_STATES: readonly ConnectionHealth[] = ['unknown', 'ok', 'degraded', 'error'];

/** Seconds, from a cache hit on loopback to a slow upstream. */
const CALL_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const AUDIT_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5];

export class PrometheusMetrics implements CallMetrics {
  readonly registry = new Registry();
  readonly #calls: Counter<'method' | 'connection' | 'class' | 'outcome' | 'reason'>;
  readonly #callSeconds: Histogram<'method' | 'connection' | 'class' | 'outcome'>;
  readonly #upstreamSeconds: Histogram<'connection' | 'class'>;
  readonly #upstreamErrors: Counter<'connection' | 'reason'>;
  readonly #refusals: Counter<'reason'>;
  readonly #auditSeconds: Histogram;
  readonly #connectionNames = new Set<string>();

  constructor(sources: MetricsSources) {
    const registers = [this.registry];
    this.#calls = new Counter({
      name: 'portcullis_calls_total',
      help: 'Governed calls by method, connection, action class, outcome (ok, error, denied) and reason code.',
      labelNames: ['method', 'connection', 'class', 'outcome', 'reason'],
      registers,
    });
    this.#callSeconds = new Histogram({
      name: 'portcullis_call_duration_seconds',
      help: 'A governed call from its beginning to its audit event, in seconds.',
      labelNames: ['method', 'connection', 'class', 'outcome'],
      buckets: CALL_BUCKETS,
      registers,
    });
    this.#upstreamSeconds = new Histogram({
      name: 'portcullis_upstream_duration_seconds',
      help: "The upstream part of a governed call (the source's executor), in seconds.",
      labelNames: ['connection', 'class'],
      buckets: CALL_BUCKETS,
      registers,
    });
    this.#upstreamErrors = new Counter({
      name: 'portcullis_upstream_errors_total',
      help: 'Calls that went upstream and failed there, by connection and reason code.',
      labelNames: ['connection', 'reason'],
      registers,
    });
    this.#refusals = new Counter({
      name: 'portcullis_refusals_total',
      help: 'Calls the gateway refused, by reason code (rate_limited among them).',
      labelNames: ['reason'],
      registers,
    });
    this.#auditSeconds = new Histogram({
      name: 'portcullis_audit_write_duration_seconds',
      help: "Writing a call's audit event (group commit included), in seconds.",
      buckets: AUDIT_BUCKETS,
      registers,
    });
    new Gauge({
      name: 'portcullis_sessions',
      help: 'MCP sessions this process holds.',
      registers,
      collect() {
        this.set(sources.liveSessions());
      },
    });
    const bounded = (name: string) => this.#connectionLabel(name);
    new Gauge({
      name: 'portcullis_connection_health',
      help: "Each connection's health: 1 for its state (unknown, ok, degraded, error), 0 for the others.",
      labelNames: ['connection', 'state'],
      registers,
      async collect() {
        this.reset();
        for (const connection of await sources.connections()) {
          const name = bounded(connection.name);
          for (const state of HEALTH_STATES)
            this.set({ connection: name, state }, connection.health === state ? 1 : 0);
        }
      },
    });
    collectDefaultMetrics({ register: this.registry, prefix: 'portcullis_' });
  }

  callFinished(record: CallRecord): void {
    const connection =
      record.connection === undefined ? '' : this.#connectionLabel(record.connection);
    const actionClass = record.actionClass ?? '';
    const outcome = record.decision === 'denied' ? 'denied' : (record.outcome ?? 'ok');
    const reason = record.reason ?? '';
    this.#calls.inc({ method: record.method, connection, class: actionClass, outcome, reason });
    this.#callSeconds.observe(
      { method: record.method, connection, class: actionClass, outcome },
      record.seconds,
    );
    if (record.decision === 'denied') this.#refusals.inc({ reason });
    if (record.upstreamSeconds !== undefined) {
      this.#upstreamSeconds.observe({ connection, class: actionClass }, record.upstreamSeconds);
      if (outcome === 'error') this.#upstreamErrors.inc({ connection, reason });
    }
  }

  auditWritten(seconds: number): void {
    this.#auditSeconds.observe(seconds);
  }

  /** The Prometheus text format (version 0.0.4). */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  #connectionLabel(name: string): string {
    if (this.#connectionNames.has(name)) return name;
    if (this.#connectionNames.size >= CONNECTION_LABELS_MAX) return 'other';
    this.#connectionNames.add(name);
    return name;
  }
}
