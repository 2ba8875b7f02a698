/**
 * Legacy sessions across replicas. Each replica keeps the sessions it serves
 * in its own `SessionTable` (the hot path: one Map lookup, and the running
 * calls that cancellation reaches); the shared state holds every session's
 * record with its idle TTL, so a request that lands on another replica finds
 * its session there, and carries what one replica must tell the others: a
 * session ended, a call cancelled, a client's answer to a request sent from
 * elsewhere, a notification for the standalone stream another replica holds
 * (a resource subscribed to here was updated).
 *
 * With the in-process state (one replica) all of this stays in memory.
 */
import type { ClientCapabilities } from '@modelcontextprotocol/server';
import { LazySubscription } from '../../ports/shared-state/lazy-subscription.ts';
import type { SharedState } from '../../ports/shared-state/shared-state.ts';
import type { JsonRpcId } from '../wire/json-rpc.ts';
import type { Session, SessionTable } from './sessions.ts';
import type { McpPrincipal } from './tool-backend.ts';

interface SessionRecord {
  agentId: string;
  workspaceId: string;
  protocolVersion: string;
  clientCapabilities: ClientCapabilities;
}

/** What one replica tells the others. */
type SessionEvent =
  | { kind: 'ended'; sessionId: string }
  | { kind: 'cancel'; sessionId: string; requestId: JsonRpcId }
  | { kind: 'answer'; sessionId: string; id: JsonRpcId; result?: unknown; error?: unknown }
  | { kind: 'notify'; sessionId: string; message: unknown };

export interface SharedSessionsOptions {
  table: SessionTable;
  state: SharedState;
  idleMs: number;
  /** Where a client's answer goes when this replica is the one waiting for it. */
  deliverAnswer: (
    sessionId: string,
    id: JsonRpcId,
    answer: { result?: unknown; error?: unknown },
  ) => boolean;
  report: (error: unknown) => void;
}

const CHANNEL = 'mcp:sessions';

export class SharedSessions {
  readonly #table: SessionTable;
  readonly #state: SharedState;
  readonly #idleMs: number;
  readonly #deliverAnswer: SharedSessionsOptions['deliverAnswer'];
  readonly #report: (error: unknown) => void;
  readonly #events: LazySubscription;

  constructor(options: SharedSessionsOptions) {
    this.#table = options.table;
    this.#state = options.state;
    this.#idleMs = options.idleMs;
    this.#deliverAnswer = options.deliverAnswer;
    this.#report = options.report;
    this.#events = new LazySubscription(options.state, CHANNEL, (message) => this.#take(message));
  }

  get size(): number {
    return this.#table.size;
  }

  /** Opens a session here and records it for every replica. */
  async open(
    principal: McpPrincipal,
    protocolVersion: string,
    clientCapabilities: ClientCapabilities,
  ): Promise<Session> {
    await this.#events.ready();
    const session = this.#table.open(principal, protocolVersion, clientCapabilities);
    const record: SessionRecord = {
      agentId: principal.agentId,
      workspaceId: principal.workspaceId,
      protocolVersion,
      clientCapabilities,
    };
    await this.#state.set(keyOf(session.id), JSON.stringify(record), this.#idleMs);
    return session;
  }

  /**
   * The caller's live session: this replica's own, or one another replica
   * opened (taken over here). Undefined for an unknown, ended or expired id
   * and for another caller's session.
   */
  use(id: string, principal: McpPrincipal): Session | undefined | Promise<Session | undefined> {
    const local = this.#table.use(id, principal);
    if (local !== undefined) {
      this.#renew(local);
      return local;
    }
    return this.#adopt(id, principal);
  }

  /** Ends a session everywhere: here at once, elsewhere by message. */
  end(session: Session): void {
    this.#table.end(session);
    this.forget(session.id);
  }

  /** Ends a session this replica already let go of, everywhere else. */
  forget(sessionId: string): void {
    void this.#state.delete(keyOf(sessionId)).catch(this.#report);
    this.#publish({ kind: 'ended', sessionId });
  }

  /** A cancellation for a call this replica may not be running. */
  cancel(session: Session, requestId: JsonRpcId): void {
    const running = session.running.get(requestId);
    if (running) running.cancel();
    else this.#publish({ kind: 'cancel', sessionId: session.id, requestId });
  }

  /** A client's answer: to the request waiting here, or to the replica that waits for it. */
  answer(session: Session, id: JsonRpcId, answer: { result?: unknown; error?: unknown }): void {
    if (this.#deliverAnswer(session.id, id, answer)) return;
    const { result, error } = answer;
    this.#publish({ kind: 'answer', sessionId: session.id, id, result, error });
  }

  /** A notification for the session's standalone stream: sent here when it is open here, else where it is. */
  announce(session: Session, message: unknown): void {
    if (session.stream !== undefined && !session.stream.closed) session.stream.send(message);
    else this.#publish({ kind: 'notify', sessionId: session.id, message });
  }

  /** Drops expired sessions, and keeps the shared records of busy ones alive for the other replicas. */
  sweep(): void {
    this.#table.sweep();
    for (const session of this.#table.busy()) {
      void this.#state.touch(keyOf(session.id), this.#idleMs).catch(this.#report);
    }
  }

  clear(): void {
    this.#table.clear();
    this.#events.close(this.#report);
  }

  async #adopt(id: string, principal: McpPrincipal): Promise<Session | undefined> {
    // A state that does not answer is state_unavailable (503), not a session that is gone.
    const text = await this.#state.get(keyOf(id));
    if (text === undefined) return undefined;
    const record = recordOf(text);
    if (record === undefined) {
      this.#report(new Error(`the shared record of session ${id} is not a session record`));
      return undefined;
    }
    if (record.agentId !== principal.agentId || record.workspaceId !== principal.workspaceId) {
      return undefined;
    }
    await this.#events.ready();
    // Another request may have taken it over while the record was read.
    const session =
      this.#table.use(id, principal) ??
      this.#table.adopt(id, principal, record.protocolVersion, record.clientCapabilities);
    this.#renew(session);
    return session;
  }

  /** Keeps the shared record alive while the session is used, renewing it a few times per idle period. */
  #renew(session: Session): void {
    // The table has just marked it used: its clock, without reading it again.
    if (session.lastUsedAt - session.renewedAt < this.#idleMs / 4) return;
    session.renewedAt = session.lastUsedAt;
    void this.#state.touch(keyOf(session.id), this.#idleMs).catch(this.#report);
  }

  #publish(event: SessionEvent): void {
    void this.#state.publish(CHANNEL, JSON.stringify(event)).catch(this.#report);
  }

  #take(message: string): void {
    const event = JSON.parse(message) as SessionEvent;
    const session = this.#table.peek(event.sessionId);
    if (session === undefined && event.kind !== 'answer') return;
    switch (event.kind) {
      case 'ended':
        this.#table.end(session!);
        return;
      case 'cancel':
        session!.running.get(event.requestId)?.cancel();
        return;
      case 'answer':
        this.#deliverAnswer(event.sessionId, event.id, event);
        return;
      case 'notify':
        if (session!.stream !== undefined && !session!.stream.closed)
          session!.stream.send(event.message);
        return;
    }
  }
}

function keyOf(sessionId: string): string {
  return `mcp:session:${sessionId}`;
}

function recordOf(text: string): SessionRecord | undefined {
  try {
    const record = JSON.parse(text) as Partial<SessionRecord> | null;
    return typeof record?.agentId === 'string' && typeof record.protocolVersion === 'string'
      ? (record as SessionRecord)
      : undefined;
  } catch {
    return undefined;
  }
}
