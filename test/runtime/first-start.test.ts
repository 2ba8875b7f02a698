/**
 * The admin token is never lost: a first start refused for its configuration
 * (any variable's bad value) or that cannot listen (the port is taken, the
 * host does not resolve) fails before it makes anything, and one that fails
 * later (a store that does not answer, anything after the store opened) makes
 * no token, so the next start prints one; a token lost anyway is replaced
 * with `portcullis admin-token create`.
 */
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configFromEnvironment } from '../../runtime/config/config.ts';
import { ConfigError } from '../../runtime/config/config-error.ts';
import { startServer } from '../../runtime/server.ts';
import { BAD_VALUES, pemOf } from '../support/bad-config.ts';
import { GENERATED } from '../support/gateway.ts';

const taken = createServer();
let takenPort = 0;

beforeAll(async () => {
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  const address = taken.address();
  takenPort = typeof address === 'object' && address ? address.port : 0;
});

afterAll(() => new Promise((resolve) => taken.close(resolve)));

describe('a first start that cannot listen', () => {
  it.each<[string, { given: () => Record<string, string>; variable: string }]>([
    ['a port in use', { given: () => ({ PORT: String(takenPort) }), variable: 'PORT' }],
    [
      'a host that does not resolve',
      { given: () => ({ PORT: '0', HOST: 'no-such-host.invalid' }), variable: 'HOST' },
    ],
  ])('%s: fails naming the variable, and the next start prints the token', async (_name, want) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'portcullis-first-'));
    const failed = await startServer(
      configFromEnvironment({ PORTCULLIS_DATA_DIR: dataDir, ...want.given() }),
      GENERATED,
    ).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failed).toBeInstanceOf(ConfigError);
    expect((failed as ConfigError).variable).toBe(want.variable);

    const running = await startServer(
      configFromEnvironment({ PORT: '0', PORTCULLIS_DATA_DIR: dataDir }),
      GENERATED,
    );
    try {
      expect(running.gateway.startup.adminToken).toMatch(/^pca_/);
    } finally {
      await running.close();
    }
  });
});

/** What is at a path: nothing, a file's bytes, or a folder's entries. */
function snapshotOf(path: string): string {
  if (!existsSync(path)) return 'nothing';
  if (!statSync(path).isDirectory()) return `file ${readFileSync(path, 'base64')}`;
  return `folder [${readdirSync(path).sort().join(', ')}]`;
}

/** What `npm start` does: the configuration from the environment, then the server. */
async function start(environment: Record<string, string>) {
  return startServer(configFromEnvironment({ PORT: '0', ...environment }), GENERATED);
}

async function refusal(started: Promise<unknown>): Promise<unknown> {
  return started.then(
    async (running) => {
      await (running as { close(): Promise<void> }).close();
      throw new Error('expected the start to be refused');
    },
    (error: unknown) => error,
  );
}

async function expectTokenPrintedAt(dataDir: string): Promise<void> {
  const running = await start({ PORTCULLIS_DATA_DIR: dataDir });
  try {
    expect(running.gateway.startup.adminToken).toMatch(/^pca_/);
  } finally {
    await running.close();
  }
}

describe('a first start refused for its configuration', () => {
  it.each(BAD_VALUES)(
    '%s: refused naming the variable, nothing made; the next start prints the token',
    async (_name, want) => {
      const dataDir = join(mkdtempSync(join(tmpdir(), 'portcullis-refused-')), 'data');
      const environment = { PORTCULLIS_DATA_DIR: dataDir, ...want.given };
      const watched = environment.PORTCULLIS_DATA_DIR;
      const before = snapshotOf(watched);

      const error = await refusal(start(environment));

      expect(error).toBeInstanceOf(ConfigError);
      expect([(error as ConfigError).code, (error as ConfigError).variable]).toEqual([
        'config_invalid',
        want.variable,
      ]);
      expect(snapshotOf(watched)).toBe(before);
      expect(snapshotOf(dataDir)).toBe('nothing');
      await expectTokenPrintedAt(dataDir);
    },
  );
});

describe('a first start that fails once it has begun', () => {
  it('a store that does not answer: no key file, no token; the next start prints the token', async () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), 'portcullis-no-store-')), 'data');
    const error = await refusal(
      start({ PORTCULLIS_DATA_DIR: dataDir, DATABASE_URL: 'postgres://127.0.0.1:1/test' }),
    );
    expect(error).toBeInstanceOf(Error);
    expect(snapshotOf(dataDir)).toBe('folder []');
    await expectTokenPrintedAt(dataDir);
  });

  it('a failure after the store opened makes no token; the next start prints it', async () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), 'portcullis-late-')), 'data');
    // A signing key validation would refuse, handed past it: a failure late in opening.
    const config = {
      ...configFromEnvironment({ PORT: '0', PORTCULLIS_DATA_DIR: dataDir }),
      oauthSigningKeyPem: pemOf(generateKeyPairSync('rsa', { modulusLength: 1024 })),
    };
    const error = await refusal(startServer(config, GENERATED));
    expect(error).toBeInstanceOf(TypeError);
    await expectTokenPrintedAt(dataDir);
  });
});
