/**
 * Where a deployment's CPU goes, read around a counted window: its gateway
 * processes and its nginx (master and worker) from /proc; the PostgreSQL
 * backends serving it (found in `pg_stat_activity` by the `application_name`
 * its connections carry, their CPU from /proc: the server runs on this
 * machine); and the Redis server's own CPU (`INFO cpu`), which is the whole
 * server's, other users' commands included.
 */
import { readFileSync } from 'node:fs';
import { Redis } from 'ioredis';
import pg from 'pg';
import { TEST_DATABASE_URL } from '../../../test/support/postgres.ts';
import { cpuTimeMs } from '../gateway/server-child.ts';

export interface CpuReading {
  gatewayMs: number;
  nginxMs: number;
  postgresMs: number;
  redisMs: number;
}

/** A process's CPU and its children's (nginx's worker), in ms. */
export function treeCpuMs(pid: number): number {
  let children: number[] = [];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {}
  return [pid, ...children].reduce((sum, p) => sum + (cpuTimeMs(p) ?? 0), 0);
}

export class CpuProbes {
  readonly #pg = new pg.Pool({ connectionString: TEST_DATABASE_URL, max: 1 });
  readonly #redis: Redis;

  constructor(redisUrl: string) {
    this.#redis = new Redis(redisUrl, { lazyConnect: false, maxRetriesPerRequest: 1 });
  }

  /** The backends serving connections named `applicationName` right now. */
  async backends(applicationName: string | undefined): Promise<number[]> {
    if (applicationName === undefined) return [];
    const { rows } = await this.#pg.query<{ pid: number }>(
      'select pid from pg_stat_activity where application_name = $1',
      [applicationName],
    );
    return rows.map((row) => row.pid);
  }

  /** The Redis server's CPU so far (user + system, all its threads), in ms. */
  async redisMs(): Promise<number> {
    const info = await this.#redis.info('cpu');
    const field = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1]);
    return (field('used_cpu_user') + field('used_cpu_sys')) * 1000;
  }

  async close(): Promise<void> {
    await this.#pg.end();
    this.#redis.disconnect();
  }
}

/** CPU of processes (each with its children) now, in ms. */
export function processesMs(pids: readonly number[]): number {
  return pids.reduce((sum, pid) => sum + treeCpuMs(pid), 0);
}
