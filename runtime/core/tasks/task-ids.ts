/**
 * The task ids Portcullis hands out: opaque, unguessable, and bound to their
 * owner. An id is the task's ticket (what finds it again: its kind, its
 * reference, the connection and action of the call it stands for, a remote
 * server's own id for it, when it expires) sealed with AES-256-GCM under a
 * key of the gateway's own (derived from its master keys, so every replica
 * opens what another sealed, and an id sealed before a key rotation still
 * opens), with the owner (workspace, agent, the member it acts for, the
 * endpoint) as the cipher's additional data.
 *
 * So another caller's id, a forged one and one that never existed fail at
 * the same step, the authentication tag, and come to the same answer
 * (`task_not_found`); an expired one too. Nothing is read from a store to
 * tell them apart, and the client learns nothing of what is inside.
 *
 * A client polls the same id again and again: the tickets of the ids opened
 * last are kept by owner and id (at most `OPENED_KEPT`), so a poll costs a
 * map lookup rather than a decryption. Only what opened for that very owner
 * is kept, and its expiry is checked on every open.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { isPlainObject } from '../base/json-value.ts';
import type { McpEra } from '../mcp/wire/protocol-version.ts';

/** Who may use a task: whoever started it, on the endpoint it was started on. */
export interface TaskOwner {
  workspaceId: string;
  agentId: string;
  /** The member the agent acts for (an OAuth client's agent), null for an operator's agent. */
  memberId: string | null;
  /** The connection whose endpoint (`/mcp/c/<connection>`) the task was started on; '' for `/mcp`. */
  endpoint: string;
}

/** What an id carries: how to find the task again. */
export interface TaskTicket {
  /** `recorded`: a task in the store (its state there); `remote`: a remote server's task. */
  kind: 'recorded' | 'remote';
  /** Names the task (in the audit log too); the store's key of a recorded task. Not a secret. */
  ref: string;
  /** A remote task: the server's own id for it. */
  upstreamId?: string;
  /** A remote task: the era of the caller that started it (which wire its upstream session speaks). */
  era?: McpEra;
  connectionId: string;
  /** The tool the call named, as `/mcp` names it: what every later request is decided on. */
  action: string;
  /** Milliseconds since the epoch. */
  createdAt: number;
  expiresAt: number;
}

const PREFIX = 'pct1.';
/** An id as `seal` writes it: nothing else is opened (so one id has one spelling). */
const ID_SHAPE = /^pct1\.[A-Za-z0-9_-]+$/;
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Longer than any id minted here can be: not worth opening. */
const MAX_ID_LENGTH = 8_192;
/** How many opened ids a process keeps the tickets of (each well under a kilobyte). */
const OPENED_KEPT = 4_096;

export class TaskIds {
  readonly #keys: readonly Buffer[];
  readonly #now: () => number;
  /** Tickets of the ids opened last, by owner and id, the oldest first. */
  readonly #opened = new Map<string, Readonly<TaskTicket>>();

  constructor(options: { keys: readonly Uint8Array[]; now?: () => number }) {
    if (options.keys.length === 0) throw new TypeError('task ids need a key');
    if (options.keys.some((key) => key.byteLength !== 32))
      throw new RangeError('a task id key must be 32 bytes');
    this.#keys = options.keys.map((key) => Buffer.from(key));
    this.#now = options.now ?? Date.now;
  }

  /** Keys derived from master keys (HKDF-SHA256, a label of their own), the current one first. */
  static fromMasterKeys(masterKeys: readonly Uint8Array[], now?: () => number): TaskIds {
    const keys = masterKeys.map(
      (key) =>
        new Uint8Array(hkdfSync('sha256', key, new Uint8Array(0), 'portcullis mcp task id', 32)),
    );
    return new TaskIds({ keys, ...(now ? { now } : {}) });
  }

  /** A new, random reference for a task (not a secret). */
  static newRef(): string {
    return randomBytes(12).toString('base64url');
  }

  /** The id `owner` polls `ticket`'s task with. */
  seal(owner: TaskOwner, ticket: TaskTicket): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#keys[0]!, iv);
    cipher.setAAD(Buffer.from(ownerLine(owner), 'utf8'));
    const sealed = Buffer.concat([
      cipher.update(JSON.stringify(ticketJson(ticket))),
      cipher.final(),
    ]);
    return PREFIX + Buffer.concat([iv, sealed, cipher.getAuthTag()]).toString('base64url');
  }

  /** The ticket of `owner`'s live task `id`; undefined for any other id (forged, expired, another's). */
  open(owner: TaskOwner, id: string): Readonly<TaskTicket> | undefined {
    if (id.length > MAX_ID_LENGTH || !ID_SHAPE.test(id)) return undefined;
    const line = ownerLine(owner);
    const key = `${line}\n${id}`;
    const kept = this.#opened.get(key);
    const ticket = kept ?? this.#decrypt(Buffer.from(line, 'utf8'), id);
    if (ticket === undefined) return undefined;
    if (ticket.expiresAt <= this.#now()) {
      this.#opened.delete(key);
      return undefined;
    }
    if (kept === undefined) {
      if (this.#opened.size >= OPENED_KEPT) this.#opened.delete(this.#opened.keys().next().value!);
      this.#opened.set(key, ticket);
    }
    return ticket;
  }

  /** The ticket sealed in `id` for the owner `aad` names, under any of the keys. */
  #decrypt(aad: Buffer, id: string): Readonly<TaskTicket> | undefined {
    const bytes = Buffer.from(id.slice(PREFIX.length), 'base64url');
    if (bytes.length <= IV_BYTES + TAG_BYTES) return undefined;
    const iv = bytes.subarray(0, IV_BYTES);
    const tag = bytes.subarray(bytes.length - TAG_BYTES);
    const sealed = bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES);
    for (const key of this.#keys) {
      let plain: Buffer;
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, iv);
        decipher.setAAD(aad);
        decipher.setAuthTag(tag);
        plain = Buffer.concat([decipher.update(sealed), decipher.final()]);
      } catch {
        continue;
      }
      const ticket = ticketOf(plain);
      return ticket === undefined ? undefined : Object.freeze(ticket);
    }
    return undefined;
  }
}

/** The owner as the cipher's additional data (none of its ids has a line break). */
function ownerLine(owner: TaskOwner): string {
  return [owner.workspaceId, owner.agentId, owner.memberId ?? '', owner.endpoint].join('\n');
}

/** The ticket in short member names: the id stays short enough for a header. */
function ticketJson(ticket: TaskTicket): Record<string, unknown> {
  return {
    k: ticket.kind,
    r: ticket.ref,
    ...(ticket.upstreamId === undefined ? {} : { u: ticket.upstreamId }),
    ...(ticket.era === undefined ? {} : { e: ticket.era }),
    c: ticket.connectionId,
    a: ticket.action,
    t: ticket.createdAt,
    x: ticket.expiresAt,
  };
}

function ticketOf(plain: Buffer): TaskTicket | undefined {
  let json: unknown;
  try {
    json = JSON.parse(plain.toString('utf8'));
  } catch {
    return undefined;
  }
  if (!isPlainObject(json)) return undefined;
  const { k, r, u, e, c, a, t, x } = json;
  if ((k !== 'recorded' && k !== 'remote') || typeof r !== 'string') return undefined;
  if (typeof c !== 'string' || typeof a !== 'string') return undefined;
  if (typeof t !== 'number' || typeof x !== 'number') return undefined;
  const ticket: TaskTicket = {
    kind: k,
    ref: r,
    connectionId: c,
    action: a,
    createdAt: t,
    expiresAt: x,
  };
  if (typeof u === 'string') ticket.upstreamId = u;
  if (e === 'modern' || e === 'legacy') ticket.era = e;
  return ticket;
}
