/**
 * Every console page's data from the gateway over HTTP (never a test): a
 * SQLite store seeded with 50 connections, 2,000 actions (40 policies each),
 * 20 agents and 1,000,000 audit events over the last 30 days (one
 * transaction, one prepared statement), an owner signed in, then each route
 * the pages call timed in turn, round after round (the routes interleaved),
 * p50 and p95 against the target, and the spread (max over min). Then the
 * same without migration 0016's indexes (dropped in place), to show what
 * they bring. The seeded log is summed into the activity rollup by
 * migration 0017's own backfill. Last, what the indexes and the rollup cost
 * an audit write (audit-write-cost.ts).
 *
 *   npm run bench:console -- [--events 1000000] [--rounds 30] [--without-0016 yes|no] [--writes yes|no]
 * Target: every route's p95 under 100 ms. Exits 0 whatever the verdicts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { AUDIT_ACTIVITY_INDEXES } from '../../runtime/adapters/sql/migrations/0016-audit-activity.ts';
import { backfillAuditActivityRollup } from '../../runtime/adapters/sql/migrations/0017-audit-activity-rollup.ts';
import { createLog } from '../../runtime/compose/log.ts';
import { SQLITE_FILE } from '../../runtime/compose/open-gateway.ts';
import { configFromEnvironment } from '../../runtime/config/config.ts';
import { syncPolicies } from '../../runtime/core/governance/contract-sync.ts';
import { newId } from '../../runtime/core/governance/keys.ts';
import { createAgent } from '../../runtime/core/operator/agents.ts';
import { addMember } from '../../runtime/core/operator/members.ts';
import { startServer } from '../../runtime/server.ts';
import { measureAuditWrites } from './audit-write-cost.ts';
import { markdownTable } from './bench-table.ts';

const TARGET_MS = 100;
const CONNECTIONS = 50;
const ACTIONS_EACH = 40;
const AGENTS = 20;
const DAY = 86_400_000;
const PASSWORD = 'a bench passphrase that is long enough';

const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '1000000' },
    rounds: { type: 'string', default: '30' },
    'without-0016': { type: 'string', default: 'yes' },
    writes: { type: 'string', default: 'yes' },
  },
});
const EVENTS = Number(values.events);
const ROUNDS = Number(values.rounds);

const dataDir = mkdtempSync(join(tmpdir(), 'portcullis-bench-console-'));
const running = await startServer(
  configFromEnvironment({ PORT: '0', PORTCULLIS_DATA_DIR: dataDir, PORTCULLIS_LOG_LEVEL: 'error' }),
  new URL('../../generated/', import.meta.url),
  createLog({ level: 'error' }),
);
try {
  const seeded = await seed();
  const session = await signIn();
  const routes = routesOf(seeded);
  const after = await measure(routes, session);
  console.log(
    `\nbench:console · ${new Date().toISOString().slice(0, 10)} · ${cpus()[0]?.model ?? 'cpu'} ×${cpus().length}`,
  );
  console.log(
    `SQLite, ${CONNECTIONS} connections, ${CONNECTIONS * ACTIONS_EACH} actions, ${AGENTS} agents, ${EVENTS.toLocaleString('en')} audit events; ${ROUNDS} rounds; target p95 < ${TARGET_MS} ms\n`,
  );
  if (values['without-0016'] === 'yes' && AUDIT_ACTIVITY_INDEXES.length > 0) {
    const database = new BetterSqlite3(join(dataDir, SQLITE_FILE));
    for (const index of AUDIT_ACTIVITY_INDEXES) database.exec(`drop index ${index.name}`);
    database.close();
    const before = await measure(routes, session);
    console.log(table(routes, after, before));
  } else {
    console.log(table(routes, after, undefined));
  }
  if (values.writes === 'yes') console.log(`\n${await measureAuditWrites()}`);
} finally {
  await running.close();
  rmSync(dataDir, { recursive: true, force: true });
}

interface Seeded {
  connections: string[];
  agents: string[];
  /** An id deep in the log (the 50th page from its start). */
  deepId: number;
  newestId: number;
}

async function seed(): Promise<Seeded> {
  const started = performance.now();
  const ctx = running.gateway.operator('cli');
  const workspace = await ctx.store.workspaces.byName('default');
  if (!workspace) throw new Error('no default workspace');
  await addMember(ctx, {
    workspace: 'default',
    name: 'bench-owner',
    password: PASSWORD,
    role: 'owner',
  });
  const agents: { id: string; name: string }[] = [];
  for (let i = 0; i < AGENTS; i++) {
    const { agent } = await createAgent(ctx, { workspace: 'default', name: `agent-${i + 1}` });
    agents.push(agent);
  }
  const provider = ctx.catalogs.getOrThrow('unikraft');
  const connections: { id: string; name: string; actions: string[] }[] = [];
  const now = new Date().toISOString();
  await ctx.store.transaction(async (tx) => {
    for (let i = 0; i < CONNECTIONS; i++) {
      const connection = {
        id: newId(),
        workspaceId: workspace.id,
        name: `conn-${String(i + 1).padStart(2, '0')}`,
        provider: provider.id,
        settings: {},
        status: 'active' as const,
        health: 'ok' as const,
        failureStreak: 0,
        createdAt: now,
        updatedAt: now,
      };
      await tx.connections.create(connection);
      const actions = provider.catalog.actions.slice(0, ACTIONS_EACH);
      await tx.policies.putMany(syncPolicies(connection, actions, [], now, 'defaults').changed);
      connections.push({
        id: connection.id,
        name: connection.name,
        actions: actions.map((a) => a.name),
      });
    }
  });

  // The audit log, oldest first over 30 days: agents skewed (the first busiest), connections
  // and actions uniform, 5% refused, 2% failed, latencies from 3 ms to a few seconds.
  const database = new BetterSqlite3(join(dataDir, SQLITE_FILE));
  database.pragma('journal_mode = WAL');
  // The log's indexes are built once after the rows, not row by row, and its rollup trigger
  // (migration 0017) is set aside while they go in: the backfill sums them after.
  const indexes = database
    .prepare(
      "select type, name, sql from sqlite_master where type in ('index', 'trigger') and tbl_name = 'audit_events' and sql is not null",
    )
    .all() as { type: string; name: string; sql: string }[];
  for (const index of indexes) database.exec(`drop ${index.type} ${index.name}`);
  const insert = database.prepare(
    `insert into audit_events (at, workspace_id, actor_kind, actor_id, action, connection_id,
       decision, reason, outcome, latency_ms) values (?, ?, 'agent', ?, ?, ?, ?, ?, ?, ?)`,
  );
  const weights = agents.map((_, i) => 1 / (i + 1));
  const totalWeight = weights.reduce((a, b) => a + b, 0);
  let random = 42;
  const next = () => {
    random = (random * 1_103_515_245 + 12_345) % 2_147_483_648;
    return random / 2_147_483_648;
  };
  const pickAgent = () => {
    let r = next() * totalWeight;
    for (const [i, w] of weights.entries()) {
      r -= w;
      if (r <= 0) return agents[i]!;
    }
    return agents.at(-1)!;
  };
  const start = Date.now() - 30 * DAY;
  const step = (30 * DAY) / EVENTS;
  database.transaction(() => {
    for (let i = 0; i < EVENTS; i++) {
      const connection = connections[Math.floor(next() * CONNECTIONS)]!;
      const roll = next();
      const denied = roll < 0.05;
      const failed = !denied && roll < 0.07;
      insert.run(
        new Date(start + i * step).toISOString(),
        workspace.id,
        pickAgent().id,
        connection.actions[Math.floor(next() * ACTIONS_EACH)]!,
        connection.id,
        denied ? 'denied' : 'allowed',
        denied ? 'grant_missing' : failed ? 'upstream_error' : null,
        denied ? null : failed ? 'error' : 'ok',
        Math.round(3 + Math.exp(next() * 8) * 10) / 10,
      );
    }
  })();
  for (const index of indexes) database.exec(index.sql);
  const [oldest, newest] = database
    .prepare('select min(id) as oldest, max(id) as newest from audit_events')
    .raw()
    .get() as [number, number];
  // The rows went in behind the store's back: sum them as migration 0017 does an existing log.
  const summing = performance.now();
  const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database }) });
  await backfillAuditActivityRollup(db);
  await db.destroy();
  console.error(`rollup backfilled in ${((performance.now() - summing) / 1000).toFixed(1)} s`);
  console.error(`seeded in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return {
    connections: connections.map((c) => c.name),
    agents: agents.map((a) => a.name),
    deepId: oldest + 50 * 50,
    newestId: newest,
  };
}

interface Session {
  cookie: string;
}

async function signIn(): Promise<Session> {
  const response = await fetch(`${running.url}/console/api/sign-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bench-owner', password: PASSWORD }),
  });
  if (response.status !== 200) throw new Error(`sign-in answered ${response.status}`);
  return { cookie: response.headers.get('set-cookie')!.split(';')[0]! };
}

interface Route {
  page: string;
  path: string;
}

function routesOf(seeded: Seeded): Route[] {
  const week = (days: number) => new Date(Date.now() - days * DAY).toISOString();
  const connection = seeded.connections[17]!;
  const rare = seeded.agents.at(-1)!;
  return [
    { page: 'session', path: '/session' },
    { page: 'connections', path: '/connections' },
    { page: 'review', path: `/connections/${connection}/actions` },
    { page: 'agents', path: '/agents' },
    { page: 'grants', path: '/grants' },
    { page: 'audit', path: '/audit' },
    { page: 'audit by agent (busiest)', path: `/audit?agent=${seeded.agents[0]}` },
    { page: 'audit by agent (rarest)', path: `/audit?agent=${rare}` },
    { page: 'audit by connection', path: `/audit?connection=${connection}` },
    { page: 'audit by action', path: '/audit?action=unikraft_list_instances' },
    { page: 'audit denied', path: '/audit?decision=denied' },
    { page: 'audit failed', path: '/audit?outcome=error' },
    { page: 'audit since 29 days ago', path: `/audit?since=${week(29)}` },
    { page: 'audit an hour a week ago', path: `/audit?since=${week(7)}&until=${week(7 - 1 / 24)}` },
    {
      page: 'audit agent+connection+failed',
      path: `/audit?agent=${rare}&connection=${connection}&outcome=error`,
    },
    { page: 'audit deep page', path: `/audit?beforeId=${seeded.deepId}` },
    { page: 'audit tail', path: `/audit/tail?afterId=${seeded.newestId - 10}` },
    {
      page: 'audit tail, rare filter',
      path: `/audit/tail?afterId=${seeded.newestId - 10}&agent=${rare}`,
    },
    { page: 'chart 24h', path: '/activity?range=24h' },
    { page: 'chart 24h connection', path: `/activity?range=24h&connection=${connection}` },
    { page: 'chart 24h agent', path: `/activity?range=24h&agent=${seeded.agents[0]}` },
    { page: 'chart 7d connection', path: `/activity?range=7d&connection=${connection}` },
    { page: 'chart 7d agent (rarest)', path: `/activity?range=7d&agent=${rare}` },
    { page: 'chart 7d', path: '/activity?range=7d' },
    { page: 'chart 30d connection', path: `/activity?range=30d&connection=${connection}` },
    { page: 'chart 30d', path: '/activity?range=30d' },
  ];
}

/** Each route's times in ms, the routes taken in turn round after round. */
async function measure(routes: Route[], session: Session): Promise<number[][]> {
  const times = routes.map(() => [] as number[]);
  for (let round = -2; round < ROUNDS; round++) {
    for (const [i, route] of routes.entries()) {
      const started = performance.now();
      const response = await fetch(`${running.url}/console/api${route.path}`, {
        headers: { cookie: session.cookie },
      });
      const body = await response.text();
      const ms = performance.now() - started;
      if (response.status !== 200) throw new Error(`${route.path}: ${response.status} ${body}`);
      if (round >= 0) times[i]!.push(ms);
    }
  }
  return times;
}

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
}

function table(routes: Route[], after: number[][], before: number[][] | undefined): string {
  const ms = (value: number) => `${value.toFixed(1)} ms`;
  const header = [
    'route',
    'p50',
    'p95',
    'spread',
    'verdict',
    ...(before ? ['without 0016 p50', 'p95'] : []),
  ];
  const cells = routes.map((route, i) => {
    const times = after[i]!;
    const p95 = quantile(times, 0.95);
    return [
      route.page,
      ms(quantile(times, 0.5)),
      ms(p95),
      `${(Math.max(...times) / Math.min(...times)).toFixed(1)}×`,
      p95 < TARGET_MS ? '✓ pass' : '✗ FAIL',
      ...(before ? [ms(quantile(before[i]!, 0.5)), ms(quantile(before[i]!, 0.95))] : []),
    ];
  });
  return markdownTable(header, cells);
}
