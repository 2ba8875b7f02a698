/**
 * The append-only audit log: `append` is one insert, `query` one select.
 * `append` (the events of the console, the CLI, OAuth: one at a time) chains
 * its event on from the newest event stored, in its transaction.
 * Each insert adds its agent calls to the activity rollup, summed in
 * JavaScript from the events in hand, in the same transaction (migration
 * 0018 dropped 0017's per-row trigger): both land or neither does.
 * `appendChained` is the gateway's group commit and the journal's fold:
 * events with their hash chain (and the journal's progress), in one transaction.
 * Ids are assigned by the engine and only increase; "newest first" means by
 * id, so events appended in the same millisecond keep their order.
 */
import { CompiledQuery, type Insertable, type Kysely, type Selectable, sql } from 'kysely';
import { GatewayError } from '../../../core/base/errors.ts';
import { CHAIN_GENESIS, chained } from '../../../core/governance/audit-chain.ts';
import { auditEvent } from '../../../core/governance/audit-event.ts';
import { delegationPrefix } from '../../../core/model/delegation.ts';
import type {
  AuditActorKind,
  AuditDecision,
  AuditEvent,
  AuditOutcome,
  AuditQuery,
  AuditVia,
  NewAuditEvent,
} from '../../../core/model/governance.ts';
import type { AuditRows } from '../../../core/ports/store.ts';
import type { AuditEventTable, Database } from '../tables/schema.ts';
import { addRollup, rollupRowsOf } from './activity-rollup-rows.ts';
import { auditActivity } from './audit-activity.ts';
import type { StoreContext } from './store-context.ts';

export function auditRows(context: StoreContext): AuditRows {
  const { db } = context;
  /** Insert statements by row count (at most BATCH of them). */
  const insertSql = new Map<number, string>();
  const insertTextFor = (rows: number) => {
    // The SQL for n rows is built once; each batch only binds its values.
    let text = insertSql.get(rows);
    if (text === undefined) {
      const sample = Array.from({ length: rows }, () => toRow(SAMPLE, CHAINLESS));
      text = db.insertInto('audit_events').values(sample).compile().sql;
      insertSql.set(rows, text);
    }
    return text;
  };
  /**
   * Inserts the events and adds their agent calls to the activity rollup,
   * summed here from the events in hand: one insert and one upsert per
   * batch, in the caller's transaction, so both land or neither does.
   */
  const insertSummed = async (
    trx: Kysely<Database>,
    events: readonly NewAuditEvent[],
    chains: readonly Chain[],
  ) => {
    for (let at = 0; at < events.length; at += BATCH) {
      const batch = events.slice(at, at + BATCH);
      const values = batch.flatMap((event, i) => rowValues(event, chains[at + i] ?? CHAINLESS));
      await trx.executeQuery(CompiledQuery.raw(insertTextFor(batch.length), values));
      await addRollup(trx, context.engine, rollupRowsOf(batch));
    }
  };
  return {
    async append(event) {
      return context.atomically(async (trx) => {
        // Chained on from the newest event stored (a fork from it on PostgreSQL when
        // another writer commits beside this one, which verify allows).
        const { rows: newest } = await sql<{ hash: string | null }>`
          select hash from audit_events order by id desc limit 1`.execute(trx);
        const link = chained(event, newest[0]?.hash ?? CHAIN_GENESIS);
        await insertSummed(trx, [event], [link]);
        const { rows } = await sql<{ top: number | string }>`
          select max(id) as top from audit_events`.execute(trx);
        return Number(rows[0]?.top);
      });
    },

    async appendMany(events) {
      if (events.length === 0) return;
      await context.atomically((trx) => insertSummed(trx, events, []));
    },

    async appendChained(records, fold) {
      await context.atomically(async (trx) => {
        if (records.length > 0)
          await insertSummed(
            trx,
            records.map((r) => r.event),
            records.map((r) => ({ prevHash: r.prevHash, hash: r.hash })),
          );
        if (fold !== undefined)
          await trx
            .insertInto('audit_journal_folds')
            .values({ journal: fold.journal, folded_bytes: fold.foldedBytes })
            .onConflict((oc) =>
              oc.column('journal').doUpdateSet({ folded_bytes: fold.foldedBytes }),
            )
            .execute();
      });
    },

    async foldedBytes(journal) {
      const row = await db
        .selectFrom('audit_journal_folds')
        .select('folded_bytes')
        .where('journal', '=', journal)
        .executeTakeFirst();
      return Number(row?.folded_bytes ?? 0);
    },

    async chain({ afterId = 0, limit }) {
      const rows = await db
        .selectFrom('audit_events')
        .selectAll()
        .where('id', '>', afterId)
        .orderBy('id', 'asc')
        .limit(limit)
        .execute();
      return rows.map((row) => ({
        id: Number(row.id),
        event: withoutId(toEvent(row)),
        prevHash: row.prev_hash,
        hash: row.hash,
      }));
    },

    async storedHashes(hashes, beforeId) {
      if (hashes.length === 0) return new Set();
      const rows = await db
        .selectFrom('audit_events')
        .select('hash')
        .where('hash', 'in', [...hashes])
        .where('id', '<', beforeId)
        .execute();
      return new Set(rows.map((row) => row.hash ?? ''));
    },

    async head() {
      const row = await db
        .selectFrom('audit_events')
        .select(['id', 'hash'])
        .where('hash', 'is not', null)
        .orderBy('id', 'desc')
        .limit(1)
        .executeTakeFirst();
      return row === undefined ? undefined : { id: Number(row.id), hash: row.hash! };
    },

    async query(query) {
      checkQuery(query);
      let select = db.selectFrom('audit_events').selectAll();
      if (query.workspaceId !== undefined) {
        select = select.where('workspace_id', '=', query.workspaceId);
      }
      if (query.actorId !== undefined) select = select.where('actor_id', '=', query.actorId);
      if (query.action !== undefined) select = select.where('action', '=', query.action);
      if (query.connectionId !== undefined) {
        select = select.where('connection_id', '=', query.connectionId);
      }
      if (query.decision !== undefined) select = select.where('decision', '=', query.decision);
      if (query.outcome !== undefined) select = select.where('outcome', '=', query.outcome);
      if (query.reason !== undefined) select = select.where('reason', '=', query.reason);
      if (query.onBehalfOf !== undefined) {
        const { memberId, actorIds } = query.onBehalfOf;
        const prefix = delegationPrefix(memberId);
        // substr, not LIKE: an id's `_` is no wildcard here; the same on both engines.
        select = select.where((eb) =>
          eb.or([
            ...(actorIds.length > 0 ? [eb('actor_id', 'in', actorIds)] : []),
            eb(sql<string>`substr(delegation, 1, ${sql.lit(prefix.length)})`, '=', prefix),
          ]),
        );
      }
      // SQLite, which keeps no statistics here, takes a time range to the (workspace, time)
      // index and sorts every event in it by id: quick for a narrow range (an hour a week
      // ago: a short index range, where the id walk would pass every newer event first),
      // slow for a wide one, where `+at` keeps it on the id walk, which stops at the page's
      // last event. A bounded count over the index tells which (PostgreSQL's planner weighs
      // both itself). Either way the same events come back.
      const at =
        context.engine === 'sqlite' && !(await narrowTimeRange(db, query))
          ? sql<string>`+at`
          : sql<string>`at`;
      if (query.since !== undefined) select = select.where(at, '>=', query.since);
      if (query.until !== undefined) select = select.where(at, '<=', query.until);
      if (query.afterId !== undefined) select = select.where('id', '>', query.afterId);
      if (query.beforeId !== undefined) select = select.where('id', '<', query.beforeId);
      select = select.orderBy('id', query.ascending === true ? 'asc' : 'desc');
      if (query.limit !== undefined) select = select.limit(query.limit);
      const rows = await select.execute();
      return rows.map(toEvent);
    },

    activity: (query) => auditActivity(db, query),
  };
}

/** Up to this many events in a time range are found by time and sorted; more, walked by id. */
const NARROW_RANGE = 10_000;

/** Whether the query has a time range of one workspace that holds few events (SQLite). */
async function narrowTimeRange(db: Kysely<Database>, query: AuditQuery): Promise<boolean> {
  if (query.workspaceId === undefined) return false;
  if (query.since === undefined && query.until === undefined) return false;
  const { rows } = await sql<{ n: number }>`
    select count(*) as n from (
      select 1 from audit_events
      where workspace_id = ${query.workspaceId}
        ${query.since === undefined ? sql`` : sql`and at >= ${query.since}`}
        ${query.until === undefined ? sql`` : sql`and at <= ${query.until}`}
      limit ${sql.lit(NARROW_RANGE + 1)})`.execute(db);
  return Number(rows[0]?.n ?? 0) <= NARROW_RANGE;
}

function checkQuery(query: AuditQuery): void {
  if (query.limit !== undefined && !(Number.isSafeInteger(query.limit) && query.limit >= 0)) {
    throw new GatewayError('invalid_input', 'limit must be a whole number, 0 or more', {
      field: 'limit',
    });
  }
  for (const field of ['afterId', 'beforeId'] as const) {
    const value = query[field];
    if (value !== undefined && !Number.isSafeInteger(value))
      throw new GatewayError('invalid_input', `${field} must be a whole number`, { field });
  }
}

/** Rows per statement: 19 columns each stays far below either engine's parameter limit. */
const BATCH = 500;

/** The chain columns of a row: null for an event written outside the journal. */
interface Chain {
  prevHash: string | null;
  hash: string | null;
}

const CHAINLESS: Chain = { prevHash: null, hash: null };

const SAMPLE: NewAuditEvent = auditEvent({
  at: '',
  actorKind: 'system',
  action: '',
  decision: 'allowed',
});

function withoutId({ id: _id, ...event }: AuditEvent): NewAuditEvent {
  return event;
}

function toRow(event: NewAuditEvent, chain: Chain): Insertable<AuditEventTable> {
  return {
    at: event.at,
    workspace_id: event.workspaceId,
    actor_kind: event.actorKind,
    actor_id: event.actorId,
    action: event.action,
    subject: event.subject,
    connection_id: event.connectionId,
    decision: event.decision,
    reason: event.reason,
    outcome: event.outcome,
    upstream_host: event.upstreamHost,
    upstream_address: event.upstreamAddress,
    upstream_status: event.upstreamStatus,
    latency_ms: event.latencyMs,
    request_bytes: event.requestBytes,
    reply_bytes: event.replyBytes,
    argument_hash: event.argumentHash,
    traceparent: event.traceparent,
    via: event.via,
    delegation: event.delegation ?? null,
    prev_hash: chain.prevHash,
    hash: chain.hash,
  };
}

/** The values of `toRow`, in its column order (the order the compiled insert binds them). */
function rowValues(event: NewAuditEvent, chain: Chain): unknown[] {
  return Object.values(toRow(event, chain));
}

function toEvent(row: Selectable<AuditEventTable>): AuditEvent {
  return {
    id: Number(row.id),
    at: row.at,
    workspaceId: row.workspace_id,
    actorKind: row.actor_kind as AuditActorKind,
    actorId: row.actor_id,
    action: row.action,
    subject: row.subject,
    connectionId: row.connection_id,
    decision: row.decision as AuditDecision,
    reason: row.reason,
    outcome: row.outcome as AuditOutcome | null,
    upstreamHost: row.upstream_host,
    upstreamAddress: row.upstream_address,
    upstreamStatus: row.upstream_status,
    latencyMs: row.latency_ms,
    requestBytes: row.request_bytes,
    replyBytes: row.reply_bytes,
    argumentHash: row.argument_hash,
    traceparent: row.traceparent,
    via: row.via as AuditVia | null,
    // Only on a call made on a member's behalf: every other event reads back as it was written.
    ...(row.delegation === null ? {} : { delegation: row.delegation }),
  };
}
