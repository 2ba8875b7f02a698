import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  TaskIds,
  type TaskOwner,
  type TaskTicket,
} from '../../../../runtime/core/tasks/task-ids.ts';

const OWNER: TaskOwner = { workspaceId: 'ws_1', agentId: 'agt_1', memberId: 'mem_1', endpoint: '' };
const NOW = 1_800_000_000_000;
const TICKET: TaskTicket = {
  kind: 'remote',
  ref: 'ref-1',
  upstreamId: 'upstream-task-7',
  era: 'legacy',
  connectionId: 'con_1',
  action: 'github__create_issue',
  createdAt: NOW,
  expiresAt: NOW + 60_000,
};

function ids(keys: Uint8Array[] = [new Uint8Array(32).fill(1)], now = NOW) {
  return new TaskIds({ keys, now: () => now });
}

describe('task ids', () => {
  it('open for their owner to the ticket they were sealed around', () => {
    const sealer = ids();
    expect(sealer.open(OWNER, sealer.seal(OWNER, TICKET))).toEqual(TICKET);
  });

  it('show nothing of the ticket, and differ each time', () => {
    const sealer = ids();
    const id = sealer.seal(OWNER, TICKET);
    for (const inside of ['github', 'upstream-task-7', 'ref-1', 'con_1', 'remote'])
      expect(id).not.toContain(inside);
    expect(sealer.seal(OWNER, TICKET)).not.toBe(id);
    expect(id).toMatch(/^pct1\.[A-Za-z0-9_-]+$/);
  });

  it.each<[string, Partial<TaskOwner>]>([
    ['another workspace', { workspaceId: 'ws_2' }],
    ['another agent', { agentId: 'agt_2' }],
    ['another member', { memberId: 'mem_2' }],
    ['no member', { memberId: null }],
    ['another endpoint', { endpoint: 'github' }],
  ])('open to nothing for %s', (_, change) => {
    const sealer = ids();
    expect(sealer.open({ ...OWNER, ...change }, sealer.seal(OWNER, TICKET))).toBeUndefined();
  });

  it('open to nothing once expired, altered, forged or cut', () => {
    const id = ids().seal(OWNER, TICKET);
    expect(ids(undefined, TICKET.expiresAt).open(OWNER, id)).toBeUndefined();
    const bytes = Buffer.from(id.slice(5), 'base64url');
    bytes[20]! ^= 1;
    for (const other of [
      `pct1.${bytes.toString('base64url')}`,
      `pct1.${randomBytes(100).toString('base64url')}`,
      id.slice(0, 30),
      id.slice(5),
      '',
    ])
      expect(ids().open(OWNER, other)).toBeUndefined();
  });

  it('once opened, still open to nothing for another owner, altered, or once expired', () => {
    let now = NOW;
    const sealer = new TaskIds({ keys: [new Uint8Array(32).fill(1)], now: () => now });
    const id = sealer.seal(OWNER, TICKET);
    expect(sealer.open(OWNER, id)).toEqual(TICKET);
    expect(sealer.open(OWNER, id)).toEqual(TICKET);
    expect(sealer.open({ ...OWNER, agentId: 'agt_2' }, id)).toBeUndefined();
    expect(sealer.open({ ...OWNER, endpoint: 'github' }, id)).toBeUndefined();
    // One spelling only: what base64url decoding would skip over is not the same id.
    expect(sealer.open(OWNER, `${id.slice(0, 20)}\n${id.slice(20)}`)).toBeUndefined();
    expect(sealer.open(OWNER, `${id}=`)).toBeUndefined();
    now = TICKET.expiresAt;
    expect(sealer.open(OWNER, id)).toBeUndefined();
    now = NOW;
    // Expired is dropped, not kept: the ticket is opened again from the id.
    expect(sealer.open(OWNER, id)).toEqual(TICKET);
  });

  it('open after a key rotation (the old key behind the new), not with an unknown key', () => {
    const old = new Uint8Array(32).fill(1);
    const id = ids([old]).seal(OWNER, TICKET);
    expect(ids([new Uint8Array(32).fill(2), old]).open(OWNER, id)).toEqual(TICKET);
    expect(ids([new Uint8Array(32).fill(2)]).open(OWNER, id)).toBeUndefined();
  });

  it('derive their keys from master keys with a label of their own', () => {
    const master = randomBytes(32);
    const id = TaskIds.fromMasterKeys([master], () => NOW).seal(OWNER, TICKET);
    expect(TaskIds.fromMasterKeys([master], () => NOW).open(OWNER, id)).toEqual(TICKET);
    // The master key itself is not the key.
    expect(ids([master]).open(OWNER, id)).toBeUndefined();
  });
});
