/**
 * Rate-limit overrides (migration 0014): one per agent or connection, set
 * again in place, a governance change each, gone with their agent or
 * connection.
 */
import { describe, expect, it } from 'vitest';
import type { RateLimitOverride } from '../../../../../runtime/core/model/rate-limits.ts';
import {
  aConnection,
  anAgent,
  aWorkspace,
  failureOf,
  T0,
  T1,
} from '../../../../support/store-fixtures.ts';
import type { StoreSubject } from '../store-contract.ts';

function anOverride(overrides: Partial<RateLimitOverride> = {}): RateLimitOverride {
  return {
    id: 'rl_1',
    workspaceId: 'ws_1',
    subject: 'agent',
    subjectId: 'agt_1',
    perMinute: 60,
    burst: 10,
    updatedAt: T0,
    ...overrides,
  };
}

export function describeRateLimitContract(subject: StoreSubject): void {
  async function anAgentAndAConnection(): Promise<void> {
    const { store } = subject;
    await store.workspaces.create(aWorkspace());
    await store.agents.create(anAgent(), 'hash-1');
    await store.connections.create(aConnection());
  }

  describe('rate-limit overrides', () => {
    it('are set, set again in place, listed and cleared, each moving the revision', async () => {
      const { store } = subject;
      await anAgentAndAConnection();
      const before = await store.revision();
      const agent = anOverride();
      const connection = anOverride({
        id: 'rl_2',
        subject: 'connection',
        subjectId: 'conn_1',
        perMinute: 600,
        burst: 600,
      });
      await store.rateLimits.set(agent);
      await store.rateLimits.set(connection);
      expect(await store.revision()).toBeGreaterThan(before);
      expect(await store.rateLimits.list('ws_1')).toEqual([agent, connection]);
      const again = anOverride({ id: 'rl_3', perMinute: 5, burst: 1, updatedAt: T1 });
      await store.rateLimits.set(again);
      expect(await store.rateLimits.all()).toEqual([{ ...again, id: 'rl_1' }, connection]);
      const set = await store.revision();
      expect(await store.rateLimits.clear('ws_1', 'agent', 'agt_1')).toBe(true);
      expect(await store.revision()).toBeGreaterThan(set);
      expect(await store.rateLimits.clear('ws_1', 'agent', 'agt_1')).toBe(false);
      expect(await store.rateLimits.clear('ws_1', 'connection', 'agt_1')).toBe(false);
      expect(await store.rateLimits.list('ws_1')).toEqual([connection]);
    });

    it.each([
      ['an agent', { subject: 'agent', subjectId: 'agt_none' }],
      ['a connection', { subject: 'connection', subjectId: 'conn_none' }],
    ] as const)('refuse %s that does not exist', async (_name, override) => {
      const { store } = subject;
      await anAgentAndAConnection();
      const error = await failureOf(store.rateLimits.set(anOverride(override)));
      expect(error.code).toBe('not_found');
      expect(error.field).toBe(override.subject);
    });

    it('go with their agent or connection', async () => {
      const { store } = subject;
      await anAgentAndAConnection();
      await store.rateLimits.set(anOverride());
      await store.rateLimits.set(
        anOverride({ id: 'rl_2', subject: 'connection', subjectId: 'conn_1' }),
      );
      await store.agents.remove('ws_1', 'agt_1');
      await store.connections.remove('ws_1', 'conn_1');
      expect(await store.rateLimits.all()).toEqual([]);
    });
  });
}
