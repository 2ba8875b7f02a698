/** The audit log: append-only, queried newest first unless asked otherwise. */
import { beforeEach, describe, expect, it } from 'vitest';
import type { AuditEvent, AuditQuery } from '../../../../../runtime/core/model/governance.ts';
import { activityOfEvents, variedAuditEvents } from '../../../../support/activity-events.ts';
import { anEvent, reasonOf, T0, T1, T2, T3 } from '../../../../support/store-fixtures.ts';
import type { StoreSubject } from '../store-contract.ts';

export function describeAuditContract(subject: StoreSubject): void {
  describe('audit events', () => {
    it('get increasing ids and come back field for field (fractional latency included)', async () => {
      const { store } = subject;
      const bare = anEvent({
        workspaceId: null,
        actorKind: 'system',
        actorId: null,
        action: 'store.open',
        subject: 'agt_7',
        connectionId: null,
        decision: 'denied',
        reason: 'not_granted',
        outcome: null,
        upstreamHost: null,
        upstreamAddress: null,
        upstreamStatus: null,
        latencyMs: null,
        requestBytes: null,
        replyBytes: null,
        argumentHash: null,
        traceparent: null,
      });
      const discovered = anEvent({ via: 'discovery' });
      const first = await store.audit.append(anEvent());
      const second = await store.audit.append(bare);
      const third = await store.audit.append(discovered);
      expect(Number.isSafeInteger(first)).toBe(true);
      expect(second).toBeGreaterThan(first);
      expect(await store.audit.query({ ascending: true })).toEqual([
        { id: first, ...anEvent() },
        { id: second, ...bare },
        { id: third, ...discovered },
      ]);
    });

    it("sum agents' calls per time bucket and latency bin, in the range, workspace, connection or agent asked", async () => {
      const { store } = subject;
      const at = (time: string) => `2025-01-01T${time}.000Z`;
      await store.audit.appendMany([
        anEvent({ at: at('09:10:01'), latencyMs: 4 }),
        anEvent({ at: at('09:10:59'), latencyMs: 4.5, decision: 'denied', outcome: null }),
        anEvent({ at: at('09:11:00'), latencyMs: 800, outcome: 'error' }),
        anEvent({ at: at('09:11:30'), latencyMs: null, actorId: 'agt_2', connectionId: null }),
        anEvent({ at: at('09:11:31'), actorKind: 'operator', actorId: 'cli' }),
        anEvent({ at: at('09:11:32'), workspaceId: 'ws_2' }),
        anEvent({ at: at('09:12:00') }),
      ]);
      const range = { workspaceId: 'ws_1', since: at('09:10:00'), until: at('09:12:00') };
      expect(await store.audit.activity({ ...range, bucketChars: 16 })).toEqual([
        { bucket: '2025-01-01T09:10', bin: 3, calls: 2, refusals: 1, errors: 0 },
        { bucket: '2025-01-01T09:11', bin: -1, calls: 1, refusals: 0, errors: 0 },
        { bucket: '2025-01-01T09:11', bin: 17, calls: 1, refusals: 0, errors: 1 },
      ]);
      expect(
        await store.audit.activity({ ...range, bucketChars: 13, connectionId: 'conn_1' }),
      ).toEqual([
        { bucket: '2025-01-01T09', bin: 3, calls: 2, refusals: 1, errors: 0 },
        { bucket: '2025-01-01T09', bin: 17, calls: 1, refusals: 0, errors: 1 },
      ]);
      expect(await store.audit.activity({ ...range, bucketChars: 10, actorId: 'agt_2' })).toEqual([
        { bucket: '2025-01-01', bin: -1, calls: 1, refusals: 0, errors: 0 },
      ]);
    });

    it('sum as the log does, for every bucket size, filter and range, whether written one by one or many at once', async () => {
      const { store } = subject;
      const events = variedAuditEvents();
      const half = Math.floor(events.length / 2);
      for (const event of events.slice(0, half)) await store.audit.append(event);
      await store.audit.appendMany(events.slice(half, half + 3));
      await store.audit.appendMany(events.slice(half + 3));
      const stored = await store.audit.query({ ascending: true });
      expect(stored).toHaveLength(events.length);
      const filters = [
        {},
        { connectionId: 'conn_2' },
        { connectionId: 'conn_none' },
        { actorId: 'agt_1' },
        { connectionId: 'conn_3', actorId: 'agt_3' },
      ];
      const ranges = [
        ['2025-01-01T00:00:00.000Z', '2025-01-03T00:00:00.000Z'],
        ['2025-01-01T10:00:00.000Z', '2025-01-02T00:00:00.000Z'],
        ['2025-01-01T09:50:00.000Z', '2025-01-02T00:01:00.000Z'],
        ['2025-01-01T09:59:59.999Z', '2025-01-02T00:00:30.000Z'],
      ] as const;
      let summed = 0;
      for (const bucketChars of [10, 13, 15, 16] as const) {
        for (const filter of filters) {
          for (const [since, until] of ranges) {
            for (const workspaceId of ['ws_1', 'ws_2']) {
              const query = { workspaceId, since, until, bucketChars, ...filter };
              const want = activityOfEvents(stored, query);
              expect(await store.audit.activity(query), JSON.stringify(query)).toEqual(want);
              summed += want.length;
            }
          }
        }
      }
      expect(summed).toBeGreaterThan(1000);
    });

    it('append many in one statement, in order, and all or none', async () => {
      const { store } = subject;
      const batch = [anEvent({ action: 'a' }), anEvent({ action: 'b' }), anEvent({ action: 'c' })];
      await store.audit.appendMany(batch);
      expect((await store.audit.query({ ascending: true })).map((e) => e.action)).toEqual([
        'a',
        'b',
        'c',
      ]);
      const broken = [anEvent({ action: 'd' }), anEvent({ action: null as unknown as string })];
      await expect(store.audit.appendMany(broken)).rejects.toThrow();
      expect((await store.audit.query({})).map((e) => e.action)).not.toContain('d');
      // Nor is the refused batch counted in the charts.
      const day = { since: `${T0.slice(0, 10)}T00:00:00.000Z`, until: '2999-01-01T00:00:00.000Z' };
      expect(
        (await store.audit.activity({ workspaceId: 'ws_1', ...day, bucketChars: 10 })).reduce(
          (sum, row) => sum + row.calls,
          0,
        ),
      ).toBe(3);
    });

    describe('queried', () => {
      /** Six events; `ids[i]` is the id of `events[i]`; two with a delegation chain. */
      const events = [
        anEvent({ at: T0 }),
        anEvent({ at: T1, decision: 'denied', reason: 'not_granted', outcome: null }),
        anEvent({
          at: T1,
          workspaceId: 'ws_2',
          actorId: 'agt_9',
          connectionId: 'conn_9',
          // A member id that only begins with mem_1's.
          delegation: 'member:mem_1x agent:agt_9 client:c_1',
        }),
        anEvent({
          at: T2,
          actorKind: 'operator',
          actorId: 'op_1',
          action: 'agent.create',
          connectionId: null,
        }),
        anEvent({
          at: T2,
          action: 'unikraft__instances_delete',
          outcome: 'error',
          reason: 'upstream_status',
        }),
        anEvent({
          at: T3,
          actorId: 'agt_2',
          decision: 'denied',
          reason: 'action_disabled',
          outcome: null,
          delegation: 'member:mem_1 agent:agt_2 client:c_1',
        }),
      ];
      let ids: number[] = [];

      beforeEach(async () => {
        ids = [];
        for (const event of events) ids.push(await subject.store.audit.append(event));
      });

      const cases: Array<[string, { given: AuditQuery; want: number[] }]> = [
        ['all, newest first', { given: {}, want: [5, 4, 3, 2, 1, 0] }],
        ['all, oldest first', { given: { ascending: true }, want: [0, 1, 2, 3, 4, 5] }],
        ['by workspace', { given: { workspaceId: 'ws_2' }, want: [2] }],
        ['by actor', { given: { actorId: 'agt_1' }, want: [4, 1, 0] }],
        ['by action', { given: { action: 'agent.create' }, want: [3] }],
        ['by connection', { given: { connectionId: 'conn_1' }, want: [5, 4, 1, 0] }],
        ['by decision', { given: { decision: 'denied' }, want: [5, 1] }],
        ['by reason', { given: { reason: 'not_granted' }, want: [1] }],
        ['since, inclusive', { given: { since: T2 }, want: [5, 4, 3] }],
        ['until, inclusive', { given: { until: T1 }, want: [2, 1, 0] }],
        ['between', { given: { since: T1, until: T2, ascending: true }, want: [1, 2, 3, 4] }],
        ['with a limit, newest first', { given: { limit: 2 }, want: [5, 4] }],
        ['with a limit, oldest first', { given: { limit: 2, ascending: true }, want: [0, 1] }],
        ['with a zero limit', { given: { limit: 0 }, want: [] }],
        [
          'combined',
          { given: { workspaceId: 'ws_1', decision: 'allowed', since: T1 }, want: [4, 3] },
        ],
        ['matching nothing', { given: { actorId: 'agt_none' }, want: [] }],
        [
          'on behalf of a member, by delegation',
          { given: { onBehalfOf: { memberId: 'mem_1', actorIds: [] } }, want: [5] },
        ],
        [
          'on behalf of a member, by actor or delegation',
          { given: { onBehalfOf: { memberId: 'mem_1', actorIds: ['op_1'] } }, want: [5, 3] },
        ],
      ];
      it.each(cases)('%s', async (_, { given, want }) => {
        const found = await subject.store.audit.query(given);
        expect(found.map((event) => event.id)).toEqual(want.map((index) => ids[index]));
      });

      it('page after an id', async () => {
        const { store } = subject;
        const page = (afterId: number): Promise<AuditEvent[]> =>
          store.audit.query({ afterId, ascending: true, limit: 4 });
        const first = await page(0);
        expect(first.map((event) => event.id)).toEqual(ids.slice(0, 4));
        const second = await page(first.at(-1)?.id ?? Number.NaN);
        expect(second.map((event) => event.id)).toEqual(ids.slice(4));
        expect(await store.audit.query({ afterId: ids[3] })).toHaveLength(2);
      });

      it('page a time range newest first, by id', async () => {
        const { store } = subject;
        const range = { workspaceId: 'ws_1', since: T1, until: T2, limit: 2 };
        const first = await store.audit.query(range);
        expect(first.map((event) => event.id)).toEqual([ids[4], ids[3]]);
        const second = await store.audit.query({ ...range, beforeId: first.at(-1)?.id ?? 0 });
        expect(second.map((event) => event.id)).toEqual([ids[1]]);
        expect(await store.audit.query({ ...range, beforeId: ids[1] })).toEqual([]);
      });

      it.each([
        ['a negative limit', { limit: -1 }, 'limit'],
        ['a fractional limit', { limit: 1.5 }, 'limit'],
        ['a fractional afterId', { afterId: 0.5 }, 'afterId'],
      ])('refuse %s with invalid_input', async (_, query, field) => {
        expect(await reasonOf(subject.store.audit.query(query))).toEqual({
          code: 'invalid_input',
          field,
        });
      });
    });
  });
}
