/**
 * The start-up banner names every backing service the gateway uses: the
 * store (SQLite's folder, PostgreSQL's host and database) and Redis (host,
 * port, database), never a user, a password or a query string. A real start
 * against the local PostgreSQL (trust: the password is ignored, so it can be
 * in the URL) and Redis (no password configured: AUTH would be refused), and
 * the banner's text for URLs that carry credentials.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { backingServicesText } from '../../../runtime/compose/backing-services.ts';
import { type TestSchemas, testSchemas } from '../../support/postgres.ts';
import { TEST_REDIS_URL } from '../../support/redis.ts';
import { startServerProcess } from '../../support/run-server.ts';

const SECRET = 's3cret';
let schemas: TestSchemas | undefined;

afterAll(async () => {
  await schemas?.dropAll();
});

describe('the banner text of the backing services', () => {
  it.each<[string, { given: Parameters<typeof backingServicesText>[0]; want: string[] }]>([
    [
      'SQLite alone',
      {
        given: { dataDir: './data', databaseUrl: undefined, redisUrl: undefined },
        want: ['store: SQLite in ./data'],
      },
    ],
    [
      'SQLite and Redis with a password',
      {
        given: {
          dataDir: './data',
          databaseUrl: undefined,
          redisUrl: `redis://:${SECRET}@127.0.0.1:6379/0`,
        },
        want: ['store: SQLite in ./data', 'shared state: Redis at redis://127.0.0.1:6379/0'],
      },
    ],
    [
      'PostgreSQL with a user and password, Redis over TLS with a user, password and query',
      {
        given: {
          dataDir: './data',
          databaseUrl: `postgres://app:${SECRET}@db.internal:5432/portcullis?sslmode=require&password=${SECRET}`,
          redisUrl: `rediss://default:${SECRET}@cache.internal:6380/2?password=${SECRET}`,
        },
        want: [
          'store: PostgreSQL at db.internal:5432/portcullis',
          'shared state: Redis at rediss://cache.internal:6380/2',
        ],
      },
    ],
  ])('%s', (_name, { given, want }) => {
    const lines = backingServicesText(given);
    expect(lines).toEqual(want);
    expect(lines.join('\n')).not.toContain(SECRET);
  });
});

describe('a start with PostgreSQL and Redis', () => {
  it('names both in its banner, without the password', async () => {
    schemas = testSchemas();
    const url = new URL(schemas.urlFor(await schemas.create()));
    url.password = SECRET;
    const started = await startServerProcess(
      {
        PORTCULLIS_DATA_DIR: join(mkdtempSync(join(tmpdir(), 'portcullis-banner-')), 'data'),
        DATABASE_URL: url.toString(),
        REDIS_URL: `${TEST_REDIS_URL}/0`,
      },
      // Stopped once a first start's admin token shows: the backing services come before it.
      (stdout) => /admin token[^\n]*\n/.test(stdout),
    );
    expect([started.outcome, started.stderr]).toEqual(['running', '']);
    const redis = new URL(TEST_REDIS_URL);
    expect(started.stdout).toContain(`store: PostgreSQL at ${url.host}${url.pathname}\n`);
    expect(started.stdout).toContain(`shared state: Redis at redis://${redis.host}/0\n`);
    expect(started.stdout).not.toContain(SECRET);
  }, 300_000);
});
