/**
 * The one place a call's audit event is written. Every call of any kind (a
 * tool call, a prompt get, a resource read, a subscription, a completion, a
 * connection's list) runs as an `AuditedCall`: its event is opened as it
 * begins (who, what, the trace, the arguments' hash), its decision and
 * outcome finish it, and the latency is measured here, from the call's
 * beginning. A call that failed inside the gateway before it finished its
 * event is finished as `internal`: every call leaves its event.
 *
 * Events of calls that finish together are written together (group commit,
 * `audit-log.ts`); when only one call runs, its event is written at once.
 */
import type { Classification } from '../../../generated/catalog-format.ts';
import { REASONS, reasonOf } from '../base/errors.ts';
import {
  inSpan,
  leafSpan,
  NO_SPAN,
  type SpanParent,
  type TraceCarrier,
  traceCarrierOf,
  traceparentOf,
} from '../base/tracing.ts';
import { auditEvent } from '../governance/audit-event.ts';
import type { ToolSourceKind } from '../governance/tool-source.ts';
import type { Caller } from '../identity/principals/principals.ts';
import type { TraceContext } from '../mcp/wire/request-meta.ts';
import type { AuditVia, NewAuditEvent } from '../model/governance.ts';
import type { AuditWriter } from '../ports/audit-writer.ts';
import { CALL_METHODS, type CallMethod, type CallMetrics, NO_METRICS } from '../ports/telemetry.ts';
import type { Execution } from '../sources/executor.ts';
import { issuedDelegation } from './acting-for.ts';
import { argumentHash } from './arguments.ts';
import type { Refused } from './decision.ts';

/** What an event says of a call's trip upstream. */
export type Upstream = Pick<
  Execution,
  'host' | 'address' | 'upstreamStatus' | 'requestBytes' | 'replyBytes'
>;

/** What a call is audited as, from its beginning. */
export interface CallOpening {
  caller: Caller;
  /** The event's action: a tool's name, or `<method> <name>`. */
  action: string;
  trace: TraceContext | undefined;
  /** The gateway's span for the request (tracing on): the call's spans are its children. */
  span?: SpanParent | undefined;
  /** How the call reached its action: `discovery` through the discovery tools; direct when absent. */
  via?: AuditVia;
  /** The MCP method it answers; by default the action's first word when it is one, else `tools/call`. */
  method?: CallMethod;
}

/** What the upstream span of a call says of its trip: the source's kind and the action's class. */
export function upstreamAttributes(
  source: ToolSourceKind,
  classification: Classification,
): Record<string, string> {
  return { 'portcullis.source': source, 'portcullis.class': classification };
}

/** Longest action an event keeps (a name the caller made up is not stored whole). */
const ACTION_MAX = 200;

export class CallAudit {
  readonly #log: AuditWriter;
  readonly #now: () => Date;
  /** Told about an event that could not be written after its call had happened. */
  readonly report: (error: unknown) => void;
  readonly #metrics: CallMetrics;
  /** Calls between their beginning and their end: when one runs alone, it writes at once. */
  #running = 0;
  /** Told when the last running call ends (`settled`). */
  #whenIdle: Array<() => void> = [];

  constructor(
    log: AuditWriter,
    now: () => Date,
    report: (error: unknown) => void,
    metrics: CallMetrics = NO_METRICS,
  ) {
    this.#log = log;
    this.#now = now;
    this.report = report;
    this.#metrics = metrics;
  }

  /** Runs `body` as one audited call. */
  async run<T>(opening: CallOpening, body: (call: AuditedCall) => Promise<T>): Promise<T> {
    this.#running++;
    const metrics = this.#metrics;
    const parent = opening.span ?? NO_SPAN;
    const call = new AuditedCall(
      opening,
      this.#now(),
      (event) =>
        leafSpan('portcullis.audit', parent, async () => {
          const started = performance.now();
          await this.#log.append(event, { alone: this.#running <= 1 });
          metrics.auditWritten((performance.now() - started) / 1000);
        }),
      metrics,
    );
    try {
      return await body(call);
    } catch (error) {
      if (!call.finished)
        await call.finish({ reason: 'internal', outcome: 'error' }).catch(this.report);
      throw error;
    } finally {
      this.#running--;
      if (this.#running === 0) for (const idle of this.#whenIdle.splice(0)) idle();
    }
  }

  /**
   * Resolves once no call is running: every call begun has ended, its event
   * written (a call's result waits for its event) or reported as unwritable.
   * The gateway waits for it as it closes, before the store closes.
   */
  settled(): Promise<void> {
    if (this.#running === 0) return Promise.resolve();
    return new Promise((idle) => this.#whenIdle.push(idle));
  }
}

export class AuditedCall {
  /** The event as opened: denied until the decision allows the call. */
  readonly event: NewAuditEvent;
  /** Why the arguments could not be hashed, if they could not (refused once the call is decided). */
  argumentProblem: unknown;
  finished = false;
  /** The class of the action the call reached, for its metrics (a tool call's). */
  actionClass: Classification | undefined;
  readonly #started = performance.now();
  readonly #write: (event: NewAuditEvent) => Promise<void>;
  readonly #metrics: CallMetrics;
  readonly #method: CallMethod;
  readonly #caller: Caller;
  /** The request's span: the parent of the call's decision, upstream and audit spans. */
  readonly #span: SpanParent;
  /** Time spent upstream so far, in milliseconds; undefined until the call goes there. */
  #upstreamMs: number | undefined;

  constructor(
    opening: CallOpening,
    at: Date,
    write: (event: NewAuditEvent) => Promise<void>,
    metrics: CallMetrics = NO_METRICS,
  ) {
    this.#write = write;
    this.#metrics = metrics;
    this.#method = opening.method ?? methodOf(opening.action);
    this.#caller = opening.caller;
    this.#span = opening.span ?? NO_SPAN;
    this.event = auditEvent({
      at: at.toISOString(),
      workspaceId: opening.caller.workspaceId,
      actorKind: 'agent',
      actorId: opening.caller.agentId,
      action: opening.action.slice(0, ACTION_MAX),
      decision: 'denied',
      // The gateway's own span when tracing is on (same trace id as the request's), else the request's.
      traceparent: traceparentOf(opening.span) ?? opening.trace?.traceparent ?? null,
      via: opening.via ?? null,
    });
    // An ID-JAG's token acts for the member its IdP named on every call, allowed or not.
    const delegation = issuedDelegation(opening.caller);
    if (delegation !== undefined) this.event.delegation = delegation;
  }

  /**
   * Runs the call's trip upstream in its span (`upstreamAttributes`), timed
   * for the metrics: every kind of call that goes upstream (a tool call, a
   * prompt get, a resource read, a list, a subscription) goes through here.
   * `body` is handed the trace context its request upstream carries (the
   * upstream span's; undefined while tracing is off).
   */
  upstream<T>(
    attributes: Record<string, string>,
    body: (trace: TraceCarrier | undefined) => Promise<T>,
  ): Promise<T> {
    const started = performance.now();
    const timed = () => {
      this.#upstreamMs = (this.#upstreamMs ?? 0) + (performance.now() - started);
    };
    return inSpan('portcullis.upstream', attributes, this.#span, (inside) =>
      body(traceCarrierOf(inside)),
    ).then(
      (value) => {
        timed();
        return value;
      },
      (error: unknown) => {
        timed();
        throw error;
      },
    );
  }

  /** Runs the call's decision in its span. */
  decide<T extends { allowed: boolean }>(body: () => T): T {
    return leafSpan('portcullis.governance', this.#span, (span) => {
      const decision = body();
      span.setAttribute('portcullis.decision', decision.allowed ? 'allowed' : 'denied');
      return decision;
    });
  }

  /** Records the arguments' hash; arguments that cannot be hashed leave it empty. */
  hashArguments(args: unknown): void {
    try {
      this.event.argumentHash = argumentHash(args);
    } catch (error) {
      this.argumentProblem = error;
    }
  }

  /** Writes the call's event as it ends, with `change` and the latency since it began. */
  finish(change: Partial<NewAuditEvent>): Promise<void> {
    this.finished = true;
    const written = this.also(change);
    this.#count({ ...this.event, ...change });
    return written;
  }

  #count(event: NewAuditEvent): void {
    const connection =
      event.connectionId === null
        ? undefined
        : this.#caller.snapshot.connectionById(event.connectionId)?.connection.name;
    this.#metrics.callFinished({
      method: this.#method,
      connection,
      actionClass: this.actionClass,
      decision: event.decision,
      outcome: event.outcome,
      reason: event.reason,
      seconds: (performance.now() - this.#started) / 1000,
      upstreamSeconds: this.#upstreamMs === undefined ? undefined : this.#upstreamMs / 1000,
    });
  }

  /** Another event of the same call (a list's held items, a subscription's end), timed alike. */
  also(change: Partial<NewAuditEvent>): Promise<void> {
    return this.#write({
      ...this.event,
      ...change,
      action: (change.action ?? this.event.action).slice(0, ACTION_MAX),
      latencyMs: Math.round((performance.now() - this.#started) * 1000) / 1000,
    });
  }

  /** Finishes the call as the decision refused it, and throws the refusal. */
  async refuse(decision: Refused): Promise<never> {
    await this.finish({ reason: decision.refusal.code, connectionId: decision.connectionId });
    throw decision.refusal;
  }

  /** The call's decision allowed it: the event names the connection from here on. */
  allowed(connectionId: string): void {
    this.event.connectionId = connectionId;
  }

  /**
   * Finishes a call that went upstream and came back: where it went, its
   * sizes, and `failed` for a reply that says the call failed.
   */
  executed(execution: Upstream, failed = false): Promise<void> {
    return this.finish({
      decision: 'allowed',
      outcome: failed ? 'error' : 'ok',
      reason: failed ? 'upstream_status' : null,
      upstreamHost: execution.host,
      upstreamAddress: execution.address,
      upstreamStatus: execution.upstreamStatus,
      requestBytes: execution.requestBytes,
      replyBytes: execution.replyBytes,
    });
  }

  /**
   * Finishes a call that failed on its way: `denied` when the gateway
   * refused it itself (its input), otherwise an `error`, the reason the code
   * of what the caller is told.
   */
  failed(error: unknown, told: unknown = error): Promise<void> {
    const reason = reasonOf(told);
    return this.finish(
      REASONS[reasonOf(error)].audited === 'denied'
        ? { decision: 'denied', outcome: null, reason }
        : { decision: 'allowed', outcome: 'error', reason },
    );
  }
}

/** A call's method from its action (`<method> <name>`, or a method alone); a tool's name is `tools/call`. */
function methodOf(action: string): CallMethod {
  const space = action.indexOf(' ');
  const first = space < 0 ? action : action.slice(0, space);
  return (CALL_METHODS as readonly string[]).includes(first) ? (first as CallMethod) : 'tools/call';
}
