/**
 * Bad configuration values of every kind, each with the variable a refusal
 * must name: the table the configuration's tests and the start's tests share.
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const scratch = mkdtempSync(join(tmpdir(), 'portcullis-config-'));
const aFile = join(scratch, 'a-file');
writeFileSync(aFile, 'not a folder');

/** A private key as PKCS#8 PEM. */
export function pemOf(
  pair: { privateKey: { export(options: object): string | Buffer } },
  options = {},
) {
  return String(pair.privateKey.export({ type: 'pkcs8', format: 'pem', ...options }));
}

/** Bad values of every kind, each refused naming its variable: the table the start checks too. */
export const BAD_VALUES: ReadonlyArray<
  [string, { given: Record<string, string>; variable: string }]
> = [
  [
    'a signing key of RSA 1024 bits',
    {
      given: {
        PORTCULLIS_OAUTH_SIGNING_KEY_PEM: pemOf(
          generateKeyPairSync('rsa', { modulusLength: 1024 }),
        ),
      },
      variable: 'PORTCULLIS_OAUTH_SIGNING_KEY_PEM',
    },
  ],
  [
    'a signing key on curve P-384',
    {
      given: {
        PORTCULLIS_OAUTH_SIGNING_KEY_PEM: pemOf(generateKeyPairSync('ec', { namedCurve: 'P-384' })),
      },
      variable: 'PORTCULLIS_OAUTH_SIGNING_KEY_PEM',
    },
  ],
  [
    'an Ed25519 signing key',
    {
      given: { PORTCULLIS_OAUTH_SIGNING_KEY_PEM: pemOf(generateKeyPairSync('ed25519')) },
      variable: 'PORTCULLIS_OAUTH_SIGNING_KEY_PEM',
    },
  ],
  [
    'an encrypted signing key',
    {
      given: {
        PORTCULLIS_OAUTH_SIGNING_KEY_PEM: pemOf(
          generateKeyPairSync('ec', { namedCurve: 'P-256' }),
          { cipher: 'aes-128-cbc', passphrase: 'x' },
        ),
      },
      variable: 'PORTCULLIS_OAUTH_SIGNING_KEY_PEM',
    },
  ],
  [
    'a public key as signing key',
    {
      given: {
        PORTCULLIS_OAUTH_SIGNING_KEY_PEM: String(
          generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({
            type: 'spki',
            format: 'pem',
          }),
        ),
      },
      variable: 'PORTCULLIS_OAUTH_SIGNING_KEY_PEM',
    },
  ],
  [
    'a garbage PEM',
    {
      given: {
        PORTCULLIS_OAUTH_SIGNING_KEY_PEM:
          '-----BEGIN PRIVATE KEY-----\nnot base64\n-----END PRIVATE KEY-----\n',
      },
      variable: 'PORTCULLIS_OAUTH_SIGNING_KEY_PEM',
    },
  ],
  [
    'a master key of 5 bytes',
    { given: { PORTCULLIS_MASTER_KEY: 'c2hvcnQ' }, variable: 'PORTCULLIS_MASTER_KEY' },
  ],
  [
    'a master key of 32 bytes with stray characters',
    {
      given: { PORTCULLIS_MASTER_KEY: `${Buffer.alloc(32, 7).toString('base64')}!!` },
      variable: 'PORTCULLIS_MASTER_KEY',
    },
  ],
  [
    'a master key as hex',
    {
      given: { PORTCULLIS_MASTER_KEY: Buffer.alloc(32, 7).toString('hex') },
      variable: 'PORTCULLIS_MASTER_KEY',
    },
  ],
  ['a port that is not a number', { given: { PORT: 'eighty' }, variable: 'PORT' }],
  ['a port out of range', { given: { PORT: '70000' }, variable: 'PORT' }],
  [
    'a deadline below its range',
    {
      given: { PORTCULLIS_UPSTREAM_DEADLINE_MS: '500' },
      variable: 'PORTCULLIS_UPSTREAM_DEADLINE_MS',
    },
  ],
  [
    'a deadline in exponent form',
    {
      given: { PORTCULLIS_UPSTREAM_DEADLINE_MS: '1e4' },
      variable: 'PORTCULLIS_UPSTREAM_DEADLINE_MS',
    },
  ],
  ['a blank host', { given: { HOST: ' ' }, variable: 'HOST' }],
  [
    'a database URL of another engine',
    { given: { DATABASE_URL: 'mysql://localhost/db' }, variable: 'DATABASE_URL' },
  ],
  [
    'a database URL with no host',
    { given: { DATABASE_URL: 'postgres://' }, variable: 'DATABASE_URL' },
  ],
  [
    'a database URL that does not parse',
    { given: { DATABASE_URL: 'postgres://exa mple/db' }, variable: 'DATABASE_URL' },
  ],
  ['a Redis URL with no host', { given: { REDIS_URL: 'redis://' }, variable: 'REDIS_URL' }],
  [
    'a Redis URL of another scheme',
    { given: { REDIS_URL: 'http://127.0.0.1:6379' }, variable: 'REDIS_URL' },
  ],
  [
    'a public URL of another scheme',
    {
      given: { PORTCULLIS_PUBLIC_URL: 'ftp://gateway.example.com' },
      variable: 'PORTCULLIS_PUBLIC_URL',
    },
  ],
  [
    'a public URL that is no URL',
    { given: { PORTCULLIS_PUBLIC_URL: 'gateway.example.com' }, variable: 'PORTCULLIS_PUBLIC_URL' },
  ],
  [
    'a redirect pattern that does not parse',
    {
      given: { PORTCULLIS_OAUTH_REDIRECT_URIS: 'https://exa[mple/cb' },
      variable: 'PORTCULLIS_OAUTH_REDIRECT_URIS',
    },
  ],
  [
    'a default scope the authorization server does not know',
    {
      given: { PORTCULLIS_OAUTH_DEFAULT_SCOPES: 'tools:read tools:admin' },
      variable: 'PORTCULLIS_OAUTH_DEFAULT_SCOPES',
    },
  ],
  [
    'default scopes that are only separators',
    {
      given: { PORTCULLIS_OAUTH_DEFAULT_SCOPES: ' , ' },
      variable: 'PORTCULLIS_OAUTH_DEFAULT_SCOPES',
    },
  ],
  [
    'a CORS origin that does not parse',
    { given: { PORTCULLIS_CORS_ORIGINS: 'https://[nope' }, variable: 'PORTCULLIS_CORS_ORIGINS' },
  ],
  [
    'a development upstream of another scheme',
    {
      given: { PORTCULLIS_DEV_UPSTREAMS: 'unikraft=ftp://x' },
      variable: 'PORTCULLIS_DEV_UPSTREAMS',
    },
  ],
  [
    'a development upstream that does not parse',
    {
      given: { PORTCULLIS_DEV_UPSTREAMS: 'unikraft=http://[::1' },
      variable: 'PORTCULLIS_DEV_UPSTREAMS',
    },
  ],
  [
    'a trusted proxy CIDR too wide',
    {
      given: { PORTCULLIS_TRUSTED_PROXIES: '10.0.0.0/33' },
      variable: 'PORTCULLIS_TRUSTED_PROXIES',
    },
  ],
  [
    'a trusted proxy by host name',
    {
      given: { PORTCULLIS_TRUSTED_PROXIES: 'proxy.example' },
      variable: 'PORTCULLIS_TRUSTED_PROXIES',
    },
  ],
  [
    'a log level with a typo',
    { given: { PORTCULLIS_LOG_LEVEL: 'loud' }, variable: 'PORTCULLIS_LOG_LEVEL' },
  ],
  [
    'a switch that is not 0 or 1',
    {
      given: { PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: 'yes' },
      variable: 'PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS',
    },
  ],
  [
    'an upstream client variable of another shape',
    {
      given: { PORTCULLIS_TOOL_OAUTH_LINEAR_ID: 'abc' },
      variable: 'PORTCULLIS_TOOL_OAUTH_LINEAR_ID',
    },
  ],
  [
    'an upstream client secret without its id',
    {
      given: { PORTCULLIS_TOOL_OAUTH_LINEAR_CLIENT_SECRET: 's' },
      variable: 'PORTCULLIS_TOOL_OAUTH_LINEAR_CLIENT_SECRET',
    },
  ],
  [
    'a data folder that is a file',
    { given: { PORTCULLIS_DATA_DIR: aFile }, variable: 'PORTCULLIS_DATA_DIR' },
  ],
  [
    'a data folder inside a file',
    { given: { PORTCULLIS_DATA_DIR: join(aFile, 'data') }, variable: 'PORTCULLIS_DATA_DIR' },
  ],
];
