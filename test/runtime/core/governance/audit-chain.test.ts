/**
 * The audit chain's canonical text with the `delegation` field (migration
 * 0026): an event without one hashes as every event chained before the
 * field existed did (its text has the 19 fields it had then), and one with
 * it carries it through the journal's record and back.
 */
import { describe, expect, it } from 'vitest';
import {
  canonicalAuditEvent,
  chained,
  eventOfCanonical,
} from '../../../../runtime/core/governance/audit-chain.ts';
import { auditEvent } from '../../../../runtime/core/governance/audit-event.ts';

const CALL = auditEvent({
  at: '2026-12-07T15:00:00.000Z',
  actorKind: 'agent',
  actorId: 'agt_1',
  action: 'wx__get_weather',
  decision: 'allowed',
  outcome: 'ok',
});

describe('the canonical text of an audit event', () => {
  it.each([
    ['without a delegation', { given: CALL, fields: 19 }],
    [
      'with one',
      { given: { ...CALL, delegation: 'member:mem_1 agent:agt_1 client:cli_1' }, fields: 20 },
    ],
  ])('%s has the fields it had when chained, and reads back whole', (_name, { given, fields }) => {
    const canonical = canonicalAuditEvent(given);
    expect(JSON.parse(canonical)).toHaveLength(fields);
    const back = eventOfCanonical(JSON.parse(canonical));
    expect(canonicalAuditEvent(back)).toBe(canonical);
    expect(back).toEqual(given);
  });

  it('hashes an event without a delegation as before the field existed', () => {
    const before = JSON.stringify(
      JSON.parse(canonicalAuditEvent({ ...CALL, delegation: 'x' })).slice(0, 19),
    );
    expect(canonicalAuditEvent(CALL)).toBe(before);
    expect(chained(CALL, '0'.repeat(64)).hash).toBe(
      chained({ ...CALL, delegation: null }, '0'.repeat(64)).hash,
    );
  });

  it('refuses a record of another length', () => {
    expect(() => eventOfCanonical(new Array(18).fill(null))).toThrow(TypeError);
  });
});
