/**
 * The server entry (`npm start`'s) refusing a first start for its
 * configuration, run as the person runs it: a child process whose stderr
 * names every variable to change and `config_invalid`, never a key's bytes,
 * and whose data folder is as it was; then a good start prints the admin
 * token. A start that spins is killed, and fails the test.
 */
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pemOf } from '../support/bad-config.ts';
import { startServerProcess } from '../support/run-server.ts';

const scratch = mkdtempSync(join(tmpdir(), 'portcullis-entry-'));

const rsa1024 = pemOf(generateKeyPairSync('rsa', { modulusLength: 1024 }));
const p384 = pemOf(generateKeyPairSync('ec', { namedCurve: 'P-384' }));
const garbage = '-----BEGIN PRIVATE KEY-----\nc2VjcmV0LW1hdGVyaWFs\n-----END PRIVATE KEY-----\n';

/** A data folder not made yet. */
function freshDataDir(): string {
  return join(mkdtempSync(join(scratch, 'case-')), 'data');
}

/** A start takes seconds, tens of them on a busy machine; a case starts one or two. */
const START_TIMEOUT = 300_000;

describe('npm start refused for its configuration', () => {
  it.each<[string, { given: Record<string, string>; variables: string[] }]>([
    [
      'a signing key of RSA 1024 bits',
      {
        given: { PORTCULLIS_OAUTH_SIGNING_KEY_PEM: rsa1024 },
        variables: ['PORTCULLIS_OAUTH_SIGNING_KEY_PEM'],
      },
    ],
    [
      'a signing key on the wrong curve',
      {
        given: { PORTCULLIS_OAUTH_SIGNING_KEY_PEM: p384 },
        variables: ['PORTCULLIS_OAUTH_SIGNING_KEY_PEM'],
      },
    ],
    [
      'a garbage PEM',
      {
        given: { PORTCULLIS_OAUTH_SIGNING_KEY_PEM: garbage },
        variables: ['PORTCULLIS_OAUTH_SIGNING_KEY_PEM'],
      },
    ],
    [
      'several bad values: every one named at once',
      {
        given: { PORTCULLIS_OAUTH_SIGNING_KEY_PEM: rsa1024, PORT: 'eighty', REDIS_URL: 'redis://' },
        variables: ['PORT', 'REDIS_URL', 'PORTCULLIS_OAUTH_SIGNING_KEY_PEM'],
      },
    ],
  ])(
    '%s: exits 1 naming the variable and config_invalid, the data folder not made',
    async (_name, want) => {
      const dataDir = freshDataDir();
      const started = await startServerProcess({ PORTCULLIS_DATA_DIR: dataDir, ...want.given });

      expect([started.outcome, started.stdout]).toEqual([1, '']);
      const lines = started.stderr.trimEnd().split('\n');
      expect(lines.map((line) => /^portcullis: (\w+): /.exec(line)?.[1] ?? line)).toEqual([
        ...want.variables,
        `  code: config_invalid (change ${want.variables.join(', ')})`,
      ]);
      for (const secret of ['c2VjcmV0LW1hdGVyaWFs', ...rsa1024.split('\n').slice(1, -2)])
        expect(started.stderr).not.toContain(secret);
      expect(existsSync(dataDir)).toBe(false);
    },
    START_TIMEOUT,
  );

  it(
    'a data folder under /proc (a recursive mkdir loops there): exits 1 naming PORTCULLIS_DATA_DIR',
    async () => {
      const started = await startServerProcess({ PORTCULLIS_DATA_DIR: '/proc/nope/data' });

      expect([started.outcome, started.stdout]).toEqual([1, '']);
      expect(started.stderr).toMatch(/^portcullis: PORTCULLIS_DATA_DIR: /);
      expect(started.stderr).toContain('  code: config_invalid (change PORTCULLIS_DATA_DIR)\n');
      expect(existsSync('/proc/nope')).toBe(false);
    },
    START_TIMEOUT,
  );

  it(
    'a good start after a refused one prints the admin token',
    async () => {
      const dataDir = freshDataDir();
      const refused = await startServerProcess({
        PORTCULLIS_DATA_DIR: dataDir,
        PORTCULLIS_OAUTH_SIGNING_KEY_PEM: rsa1024,
      });
      expect(refused.outcome).toBe(1);

      // Running once the token is printed: the banner's lines are separate writes, and a
      // child stopped at the first one would not have printed the token yet.
      const started = await startServerProcess({ PORTCULLIS_DATA_DIR: dataDir }, (stdout) =>
        /^admin token \(shown once; keep it\): pca_\S+$/m.test(stdout),
      );
      expect([started.outcome, started.stderr]).toEqual(['running', '']);
      expect(started.stdout).toMatch(/^admin token \(shown once; keep it\): pca_\S+$/m);
    },
    START_TIMEOUT,
  );
});
