/**
 * The audit journal's hash chain (issue 33): each record carries
 * sha256(previous hash + the event's canonical text), so an event changed,
 * removed or put in after the fact breaks the link of the one after it.
 * The canonical text is the event's fields in one fixed order as a JSON
 * array (strings, numbers and nulls only: what the store gives back is what
 * was hashed), never the field names' order of an object.
 */
import { createHash } from 'node:crypto';
import type { ChainedAuditEvent, NewAuditEvent } from '../model/governance.ts';

/** The previous hash of a chain's first record: 64 zeros. */
export const CHAIN_GENESIS = '0'.repeat(64);

/** The fields in their one order; a new field of the event goes at the end. */
const FIELDS = [
  'at',
  'workspaceId',
  'actorKind',
  'actorId',
  'action',
  'subject',
  'connectionId',
  'decision',
  'reason',
  'outcome',
  'upstreamHost',
  'upstreamAddress',
  'upstreamStatus',
  'latencyMs',
  'requestBytes',
  'replyBytes',
  'argumentHash',
  'traceparent',
  'via',
  'delegation',
] as const satisfies ReadonlyArray<keyof NewAuditEvent>;

/** The fields an event chained before `delegation` existed has (its canonical text ends there). */
const FIELDS_BEFORE_DELEGATION = FIELDS.length - 1;

export function canonicalAuditEvent(event: NewAuditEvent): string {
  const values = FIELDS.map((field) => event[field] ?? null);
  // A null `delegation` is left out, so every event chained before it hashes as it did.
  if (values[FIELDS_BEFORE_DELEGATION] === null) values.length = FIELDS_BEFORE_DELEGATION;
  return JSON.stringify(values);
}

export function chainHash(prevHash: string, canonical: string): string {
  return createHash('sha256').update(prevHash).update(canonical).digest('hex');
}

/** The event chained after `prevHash`. */
export function chained(event: NewAuditEvent, prevHash: string): ChainedAuditEvent {
  return { event, prevHash, hash: chainHash(prevHash, canonicalAuditEvent(event)) };
}

/** The event a canonical text spells (the journal's record), or a TypeError for one that is not. */
export function eventOfCanonical(canonical: unknown): NewAuditEvent {
  if (
    !Array.isArray(canonical) ||
    (canonical.length !== FIELDS.length && canonical.length !== FIELDS_BEFORE_DELEGATION)
  )
    throw new TypeError('not an audit event in canonical form');
  const event = Object.fromEntries(
    FIELDS.map((field, i) => [field, canonical[i] ?? null]),
  ) as NewAuditEvent;
  // An event without a delegation reads back as it was written (no such field).
  if (event.delegation === null) delete event.delegation;
  return event;
}
