/**
 * The admin token is never lost: a first start that cannot listen (the port
 * is taken, the host does not resolve) fails before it makes the token, so
 * the next start prints one; a token lost anyway is replaced with
 * `portcullis admin-token create`.
 */
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, configFromEnvironment } from '../../runtime/core/config/config.ts';
import { startServer } from '../../runtime/server.ts';
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
