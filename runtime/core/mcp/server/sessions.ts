/**
 * MCP sessions, one per `initialize`, each owned by the principal that opened
 * it. A Map in least-recently-used order: every use moves a session to the
 * end, so expiry and eviction read from the front and memory stays bounded.
 */
import { randomUUID } from 'node:crypto';
import type { ClientCapabilities, LoggingLevel } from '@modelcontextprotocol/server';
import type { Cancellation } from '../../base/cancellation.ts';
import type { EventStream } from '../wire/event-stream.ts';
import type { JsonRpcId } from '../wire/json-rpc.ts';
import type { McpPrincipal, ResourceSubscription } from './tool-backend.ts';

export interface Session {
  /** Visible ASCII only (a UUID), as the transport requires. */
  readonly id: string;
  readonly agentId: string;
  readonly workspaceId: string;
  readonly protocolVersion: string;
  /** What the client declared in `initialize`. */
  readonly clientCapabilities: ClientCapabilities;
  lastUsedAt: number;
  /** When the session's shared record (every replica's view) was last kept alive. */
  renewedAt: number;
  /** Tool calls running in this session, by JSON-RPC id, so they can be cancelled. */
  readonly running: Map<JsonRpcId, Cancellation>;
  /** The standalone stream the client opened with GET, if any (at most one). */
  stream: EventStream | undefined;
  /** The lowest level of log messages the client asked for (`logging/setLevel`); none until it asks. */
  logLevel: LoggingLevel | undefined;
  /** The resources the client subscribed to here, by URI; ended with the session. */
  readonly subscriptions: Map<string, ResourceSubscription>;
  /** Ended here (by the client, expiry, eviction or another replica's word). */
  ended: boolean;
}

export interface SessionTableOptions {
  /** A session unused this long is gone. */
  idleMs: number;
  /** Opening one more evicts the least recently used. */
  maxSessions: number;
  /**
   * Sessions one agent may hold; opening one more evicts that agent's least
   * recently used, so no agent can push the others' sessions out.
   */
  maxSessionsPerAgent: number;
  /** Told of a session ended to make room for another (not of one that expired or was ended). */
  onEvicted?: (session: Session) => void;
  now?: () => number;
}

export class SessionTable {
  readonly #sessions = new Map<string, Session>();
  readonly #idleMs: number;
  readonly #maxSessions: number;
  readonly #maxPerAgent: number;
  /** Live sessions per agent (see `agentKey`). */
  readonly #perAgent = new Map<string, number>();
  readonly #now: () => number;
  readonly #onEvicted: (session: Session) => void;

  constructor(options: SessionTableOptions) {
    if (!(options.idleMs > 0)) throw new TypeError('idleMs must be a positive number');
    for (const name of ['maxSessions', 'maxSessionsPerAgent'] as const) {
      if (!(Number.isInteger(options[name]) && options[name] > 0)) {
        throw new TypeError(`${name} must be a positive integer`);
      }
    }
    this.#idleMs = options.idleMs;
    this.#maxSessions = options.maxSessions;
    this.#maxPerAgent = options.maxSessionsPerAgent;
    this.#now = options.now ?? Date.now;
    this.#onEvicted = options.onEvicted ?? (() => {});
  }

  get size(): number {
    return this.#sessions.size;
  }

  open(
    principal: McpPrincipal,
    protocolVersion: string,
    clientCapabilities: ClientCapabilities = {},
  ): Session {
    return this.adopt(randomUUID(), principal, protocolVersion, clientCapabilities);
  }

  /** Takes in a session under a given id (one another replica opened), with the same limits as `open`. */
  adopt(
    id: string,
    principal: McpPrincipal,
    protocolVersion: string,
    clientCapabilities: ClientCapabilities,
  ): Session {
    this.sweep();
    const agent = agentKey(principal);
    if ((this.#perAgent.get(agent) ?? 0) >= this.#maxPerAgent) {
      for (const session of this.#sessions.values()) {
        if (agentKey(session) !== agent) continue;
        this.#end(session);
        this.#onEvicted(session);
        break;
      }
    }
    while (this.#sessions.size >= this.#maxSessions) {
      const oldest = this.#sessions.values().next().value;
      if (oldest === undefined) break;
      this.#end(oldest);
      this.#onEvicted(oldest);
    }
    const now = this.#now();
    const session: Session = {
      id,
      agentId: principal.agentId,
      workspaceId: principal.workspaceId,
      protocolVersion,
      clientCapabilities,
      lastUsedAt: now,
      renewedAt: now,
      running: new Map(),
      stream: undefined,
      subscriptions: new Map(),
      ended: false,
      logLevel: undefined,
    };
    this.#sessions.set(session.id, session);
    this.#perAgent.set(agent, (this.#perAgent.get(agent) ?? 0) + 1);
    return session;
  }

  /** The session with this id, whoever owns it, without marking it used (for messages between replicas). */
  peek(id: string): Session | undefined {
    return this.#sessions.get(id);
  }

  /**
   * The live session with this id opened by this principal, marked as used;
   * undefined for an unknown, ended or expired id and for another caller's
   * session (indistinguishable to the caller).
   */
  use(id: string, principal: McpPrincipal): Session | undefined {
    const session = this.#sessions.get(id);
    if (
      session === undefined ||
      session.agentId !== principal.agentId ||
      session.workspaceId !== principal.workspaceId
    ) {
      return undefined;
    }
    const now = this.#now();
    if (this.#isExpired(session, now)) {
      this.#end(session);
      return undefined;
    }
    this.#touch(session, now);
    return session;
  }

  /** Ends a session and cancels its running calls. */
  end(session: Session): void {
    if (this.#sessions.get(session.id) === session) this.#end(session);
  }

  /** Drops expired sessions, oldest first; a session with running calls or an open stream is kept (and moved on). */
  sweep(): void {
    const now = this.#now();
    for (const session of this.#sessions.values()) {
      if (now - session.lastUsedAt < this.#idleMs) return;
      if (isBusy(session)) {
        this.#touch(session, now);
        continue;
      }
      this.#end(session);
    }
  }

  /** The sessions with running calls or an open stream: alive however long since their last request. */
  *busy(): Iterable<Session> {
    for (const session of this.#sessions.values()) if (isBusy(session)) yield session;
  }

  /** Drops every session (the endpoint closes): streams end, running calls finish and answer. */
  clear(): void {
    for (const session of [...this.#sessions.values()]) this.#end(session, { cancelCalls: false });
  }

  #isExpired(session: Session, now: number): boolean {
    return now - session.lastUsedAt >= this.#idleMs && !isBusy(session);
  }

  /** Marks a session used now: it moves to the most recently used end. */
  #touch(session: Session, now: number): void {
    session.lastUsedAt = now;
    this.#sessions.delete(session.id);
    this.#sessions.set(session.id, session);
  }

  #end(session: Session, { cancelCalls = true } = {}): void {
    session.ended = true;
    this.#sessions.delete(session.id);
    const agent = agentKey(session);
    const left = (this.#perAgent.get(agent) ?? 1) - 1;
    if (left > 0) this.#perAgent.set(agent, left);
    else this.#perAgent.delete(agent);
    if (cancelCalls) for (const call of session.running.values()) call.cancel();
    session.running.clear();
    session.stream?.end();
    session.stream = undefined;
    // Undone upstream too: nothing is left subscribed for a client that is gone.
    for (const subscription of session.subscriptions.values())
      void subscription.end().catch(() => {});
    session.subscriptions.clear();
  }
}

function isBusy(session: Session): boolean {
  return session.running.size > 0 || session.stream !== undefined;
}

function agentKey({ workspaceId, agentId }: McpPrincipal): string {
  return `${workspaceId}/${agentId}`;
}
