import { generateKeyPairSync } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configFromEnvironment } from '../../../runtime/config/config.ts';
import { ConfigError } from '../../../runtime/config/config-error.ts';
import { BAD_VALUES, pemOf, scratch } from '../../support/bad-config.ts';

function errorOf(environment: Record<string, string>): ConfigError {
  try {
    configFromEnvironment(environment);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('configFromEnvironment', () => {
  it('has the embedded defaults: loopback, 8080, ./data, SQLite, a key file', () => {
    expect(configFromEnvironment({})).toEqual({
      listenAddress: '127.0.0.1',
      listenPort: 8080,
      dataDir: './data',
      databaseUrl: undefined,
      redisUrl: undefined,
      masterKey: undefined,
      devUpstreams: {},
      allowPrivateNetworks: false,
      publicUrl: undefined,
      oauthRedirectUris: [],
      oauthDefaultScopes: ['tools:read'],
      oauthStepUp: 'http',
      oauthSigningKeyPem: undefined,
      corsOrigins: [],
      trustedProxies: [],
      logLevel: 'info',
      upstreamDeadlineMs: 60_000,
      rateLimits: {
        agent: undefined,
        connection: undefined,
        client: { perMinute: 300, burst: 300 },
        admin: { perMinute: 1200, burst: 1200 },
      },
      discoveryThreshold: 40,
      shutdownDeadlineMs: 25_000,
      reviewFlagged: 'show',
      approvals: { ttlMs: 900_000, waitMs: 60_000, self: 'refuse' },
      toolOAuthClients: {},
      idpSecrets: {},
      auditJournal: true,
    });
  });

  it('takes the audit journal on SQLite unless told off, and on PostgreSQL only when asked', () => {
    const postgres = { DATABASE_URL: 'postgres://127.0.0.1/test' };
    expect(configFromEnvironment({}).auditJournal).toBe(true);
    expect(configFromEnvironment(postgres).auditJournal).toBe(false);
    expect(
      configFromEnvironment({ ...postgres, PORTCULLIS_AUDIT_JOURNAL: 'on' }).auditJournal,
    ).toBe(true);
    expect(configFromEnvironment({ PORTCULLIS_AUDIT_JOURNAL: 'off' }).auditJournal).toBe(false);
    expect(configFromEnvironment({ PORTCULLIS_AUDIT_JOURNAL: 'on' }).auditJournal).toBe(true);
  });

  it('reads PORTCULLIS_REVIEW_FLAGGED, and names it with the words it takes', () => {
    expect(configFromEnvironment({ PORTCULLIS_REVIEW_FLAGGED: 'block' }).reviewFlagged).toBe(
      'block',
    );
    expect(() => configFromEnvironment({ PORTCULLIS_REVIEW_FLAGGED: 'blok' })).toThrowError(
      /PORTCULLIS_REVIEW_FLAGGED.*show or block/,
    );
  });

  it('reads the authorization server and CORS settings', () => {
    const config = configFromEnvironment({
      PORTCULLIS_OAUTH_REDIRECT_URIS:
        'https://chatgpt.com/connector/oauth/*,http://127.0.0.1:*/callback',
      PORTCULLIS_CORS_ORIGINS: 'https://inspector.example,http://localhost:6274',
    });
    expect(config.oauthRedirectUris).toEqual([
      'https://chatgpt.com/connector/oauth/*',
      'http://127.0.0.1:*/callback',
    ]);
    expect(config.corsOrigins).toEqual(['https://inspector.example', 'http://localhost:6274']);
  });

  it.each([
    ['one scope', { given: 'tools:write', want: ['tools:write'] }],
    ['spaces', { given: 'tools:write tools:read', want: ['tools:read', 'tools:write'] }],
    ['commas', { given: 'tools:read,tools:write', want: ['tools:read', 'tools:write'] }],
    ['a repeat', { given: 'tools:read tools:read', want: ['tools:read'] }],
    [
      "one connection's",
      { given: 'tools:read tools:write:staging', want: ['tools:read', 'tools:write:staging'] },
    ],
  ])('reads the default OAuth scopes written with %s', (_name, { given, want }) => {
    expect(
      configFromEnvironment({ PORTCULLIS_OAUTH_DEFAULT_SCOPES: given }).oauthDefaultScopes,
    ).toEqual(want);
  });

  it('reads the trusted proxies: addresses, CIDRs and named ranges', () => {
    const config = configFromEnvironment({
      PORTCULLIS_TRUSTED_PROXIES: 'loopback,10.0.0.0/8,fd00::/8,192.0.2.10',
    });
    expect(config.trustedProxies).toEqual(['loopback', '10.0.0.0/8', 'fd00::/8', '192.0.2.10']);
  });

  it('never repeats a signing key PEM in its error', () => {
    const pem = 'not a key: secret-material-1234';
    expect(() => configFromEnvironment({ PORTCULLIS_OAUTH_SIGNING_KEY_PEM: pem })).toThrow(
      /^PORTCULLIS_OAUTH_SIGNING_KEY_PEM: expected a PEM private key/,
    );
    try {
      configFromEnvironment({ PORTCULLIS_OAUTH_SIGNING_KEY_PEM: pem });
    } catch (error) {
      expect(String(error)).not.toContain('secret-material');
    }
  });

  it('reads the variables it is given, ignoring unrelated ones and empty values', () => {
    const key = Buffer.alloc(32, 9);
    const config = configFromEnvironment({
      HOST: '0.0.0.0',
      PORT: '9090',
      PORTCULLIS_DATA_DIR: '/var/lib/portcullis',
      DATABASE_URL: 'postgres://127.0.0.1:5432/test',
      PORTCULLIS_MASTER_KEY: key.toString('base64'),
      PATH: '/usr/bin',
      PORTCULLIS_SPEC_MIRROR: '',
    });
    expect(config).toMatchObject({
      listenAddress: '0.0.0.0',
      listenPort: 9090,
      dataDir: '/var/lib/portcullis',
      databaseUrl: 'postgres://127.0.0.1:5432/test',
    });
    expect(config.masterKey?.equals(key)).toBe(true);
  });

  it.each(BAD_VALUES)('refuses %s, naming its variable and nothing else', (_name, want) => {
    const error = errorOf(want.given);
    expect([error.code, error.problems.map((problem) => problem.variable)]).toEqual([
      'config_invalid',
      [want.variable],
    ]);
    // A secret's value is never repeated, not even a line of it.
    if (want.variable.endsWith('_KEY') || want.variable.endsWith('_PEM')) {
      const lines = Object.values(want.given).flatMap((value) => value.split('\n'));
      for (const line of lines.filter((text) => text.length > 4 && !text.startsWith('-----')))
        expect(error.message).not.toContain(line);
    }
  });

  it('reports every bad value at once, in the order of the variables', () => {
    const given = Object.assign({}, ...BAD_VALUES.map(([, want]) => want.given)) as Record<
      string,
      string
    >;
    const error = errorOf(given);
    expect(error.problems.map((problem) => problem.variable).sort()).toEqual(
      [...new Set(BAD_VALUES.map(([, want]) => want.variable))].sort(),
    );
    expect(error.message.split('\n')).toHaveLength(error.problems.length);
  });

  it.each<[string, { given: string; want: string }]>([
    [
      'RSA 1024',
      {
        given: pemOf(generateKeyPairSync('rsa', { modulusLength: 1024 })),
        want: 'an RSA key of 1024 bits',
      },
    ],
    [
      'EC P-384',
      {
        given: pemOf(generateKeyPairSync('ec', { namedCurve: 'P-384' })),
        want: 'an EC key on curve secp384r1',
      },
    ],
    ['Ed25519', { given: pemOf(generateKeyPairSync('ed25519')), want: 'an ed25519 key' }],
    ['no key', { given: 'not a key: secret-material-1234', want: 'no private key in PEM' }],
  ])('says what a signing key of %s is, and what it takes', (_name, { given, want }) => {
    expect(errorOf({ PORTCULLIS_OAUTH_SIGNING_KEY_PEM: given }).message).toBe(
      `PORTCULLIS_OAUTH_SIGNING_KEY_PEM: expected a PEM private key (EC P-256 for ES256, or RSA 2048+ for RS256), got ${want}`,
    );
  });

  it.each<[string, Record<string, string>]>([
    [
      'an EC P-256 signing key',
      {
        PORTCULLIS_OAUTH_SIGNING_KEY_PEM: pemOf(generateKeyPairSync('ec', { namedCurve: 'P-256' })),
      },
    ],
    [
      'an RSA 2048 signing key in PKCS#1',
      {
        PORTCULLIS_OAUTH_SIGNING_KEY_PEM: pemOf(
          generateKeyPairSync('rsa', { modulusLength: 2048 }),
          { type: 'pkcs1' },
        ),
      },
    ],
    [
      'a master key in base64url',
      { PORTCULLIS_MASTER_KEY: Buffer.alloc(32, 250).toString('base64url') },
    ],
    [
      'an upstream client with its secret',
      {
        PORTCULLIS_TOOL_OAUTH_LINEAR_CLIENT_ID: 'id',
        PORTCULLIS_TOOL_OAUTH_LINEAR_CLIENT_SECRET: 's',
      },
    ],
    [
      'a data folder to be made in a new folder',
      { PORTCULLIS_DATA_DIR: join(scratch, 'new', 'data') },
    ],
  ])('takes %s', (_name, given) => {
    expect(() => configFromEnvironment(given)).not.toThrow();
  });

  it('reads development upstream overrides, which allow private networks', () => {
    const config = configFromEnvironment({
      PORTCULLIS_DEV_UPSTREAMS: 'unikraft=http://127.0.0.1:4010,daytona=http://localhost:4011',
    });
    expect(config.devUpstreams).toEqual({
      unikraft: 'http://127.0.0.1:4010',
      daytona: 'http://localhost:4011',
    });
    expect(config.allowPrivateNetworks).toBe(true);
  });

  // The message is the requirement here: a person reads it and must know what to type.
  it.each<[string, { given: Record<string, string>; want: string }]>([
    [
      'a blank PORT',
      {
        given: { PORT: ' ' },
        want: 'PORT: expected a port number from 0 to 65535 (0: any free port), got " "',
      },
    ],
    [
      'a PORT that is not a number',
      {
        given: { PORT: 'abc' },
        want: 'PORT: expected a port number from 0 to 65535 (0: any free port), got "abc"',
      },
    ],
    [
      'a PORT out of range',
      {
        given: { PORT: '99999' },
        want: 'PORT: expected a port number from 0 to 65535 (0: any free port), got "99999"',
      },
    ],
    [
      'a PORT with a sign',
      {
        given: { PORT: '-1' },
        want: 'PORT: expected a port number from 0 to 65535 (0: any free port), got "-1"',
      },
    ],
    [
      'a blank HOST',
      {
        given: { HOST: '  ' },
        want: 'HOST: expected an address or host name to listen on, e.g. 127.0.0.1 or 0.0.0.0, got "  "',
      },
    ],
    [
      'a log level with a typo',
      {
        given: { PORTCULLIS_LOG_LEVEL: 'debg' },
        want: 'PORTCULLIS_LOG_LEVEL: expected one of fatal, error, warn, info, debug, silent, got "debg"; did you mean debug?',
      },
    ],
    [
      'a switch that is not 0 or 1',
      {
        given: { PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: 'yes' },
        want: 'PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: expected 1 (on) or 0 (off), got "yes"',
      },
    ],
    [
      'a deadline in seconds',
      {
        given: { PORTCULLIS_UPSTREAM_DEADLINE_MS: '30' },
        want: 'PORTCULLIS_UPSTREAM_DEADLINE_MS: expected a whole number of milliseconds from 1000 to 3600000, got "30"',
      },
    ],
    [
      'a database URL of another engine, not repeated (it may hold a password)',
      {
        given: { DATABASE_URL: 'mysql://root:hunter2@localhost/db' },
        want: 'DATABASE_URL: expected a postgres:// or postgresql:// URL',
      },
    ],
  ])('says what to type for %s', (_name, { given, want }) => {
    expect(errorOf(given).message).toBe(want);
  });

  it('reads the upstream deadline', () => {
    expect(
      configFromEnvironment({ PORTCULLIS_UPSTREAM_DEADLINE_MS: '2500' }).upstreamDeadlineMs,
    ).toBe(2_500);
  });

  it('never repeats the master key in its error', () => {
    const error = errorOf({ PORTCULLIS_MASTER_KEY: 'not-a-real-key-but-secret' });
    expect(error.message).not.toContain('not-a-real-key-but-secret');
  });
});
