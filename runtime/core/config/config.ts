/**
 * The gateway's configuration, from the environment, validated with zod. A bad
 * value is one clear error naming the variable and what it takes; the master
 * key's value never appears in it.
 */
import { z } from 'zod';

const port = z.coerce
  .number()
  .int('a whole number')
  .min(0, 'from 0 (any free port)')
  .max(65_535, 'to 65535');

export const ConfigSchema = z.strictObject({
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: port.default(8080),
  PORTCULLIS_DATA_DIR: z.string().min(1).default('./data'),
  /** `postgres://…` selects PostgreSQL; unset, the embedded SQLite file in the data folder. */
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'a postgres:// or postgresql:// URL')
    .optional(),
  /**
   * `redis://…` or `rediss://…`: the shared ephemeral state (sessions, pending
   * input, change fan-out) lives in Redis, so several replicas serve together;
   * unset, in this process.
   */
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'a redis:// or rediss:// URL')
    .optional(),
  /** 32 bytes, base64 or base64url; unset, a key file in the data folder (created on first start). */
  PORTCULLIS_MASTER_KEY: z
    .string()
    .refine(
      (value) => Buffer.from(value, 'base64url').byteLength === 32,
      '32 bytes in base64 or base64url',
    )
    .optional(),
  /**
   * Development only: send a provider's calls elsewhere, e.g.
   * `unikraft=http://127.0.0.1:4010,unikraft/sandbox=http://127.0.0.1:4011`
   * (Prism per document). The url stands in for the action's server URL. The catalog's
   * host checks still run on the real host first; loopback and private
   * addresses become reachable, so the gateway says so loudly at start.
   */
  PORTCULLIS_DEV_UPSTREAMS: z
    .string()
    .regex(
      /^[a-z0-9-]+(\/[a-z0-9-]+)?=https?:\/\/[^,\s]+(,[a-z0-9-]+(\/[a-z0-9-]+)?=https?:\/\/[^,\s]+)*$/,
      'provider[/document]=http(s)://url pairs, comma-separated',
    )
    .optional(),
  /**
   * The gateway's public address (e.g. `https://gateway.example.com`), when
   * clients reach it by a name other than loopback: its host and origin are
   * allowed by the DNS-rebinding checks on `/mcp`.
   */
  PORTCULLIS_PUBLIC_URL: z.url({ protocol: /^https?$/, error: 'an http(s):// URL' }).optional(),
  /** The operator's log (JSON lines on stderr). */
  PORTCULLIS_LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'silent'])
    .default('info'),
  /** Development only: let outbound calls reach loopback and private networks (`1`). */
  PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: z.enum(['0', '1']).optional(),
});

export interface Config {
  host: string;
  port: number;
  dataDir: string;
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  masterKey: Buffer | undefined;
  /** `provider` or `provider/document` → the URL that stands in for its server URL (development only). */
  devUpstreams: Record<string, string>;
  allowPrivateNetworks: boolean;
  publicUrl: URL | undefined;
  logLevel: string;
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  readonly code = 'config_invalid';
  /** The environment variable to change. */
  readonly variable: string;

  constructor(variable: string, message: string) {
    super(`${variable}: ${message}`);
    this.variable = variable;
  }
}

const KNOWN = Object.keys(ConfigSchema.shape);

export function configFromEnvironment(environment: Record<string, string | undefined>): Config {
  const relevant = Object.fromEntries(
    KNOWN.filter((k) => environment[k] !== undefined && environment[k] !== '').map((k) => [
      k,
      environment[k],
    ]),
  );
  const parsed = ConfigSchema.safeParse(relevant);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(String(issue.path[0] ?? 'environment'), `expected ${issue.message}`);
  }
  const values = parsed.data;
  return {
    host: values.HOST,
    port: values.PORT,
    dataDir: values.PORTCULLIS_DATA_DIR,
    databaseUrl: values.DATABASE_URL,
    redisUrl: values.REDIS_URL,
    masterKey: values.PORTCULLIS_MASTER_KEY
      ? Buffer.from(values.PORTCULLIS_MASTER_KEY, 'base64url')
      : undefined,
    devUpstreams: Object.fromEntries(
      (values.PORTCULLIS_DEV_UPSTREAMS?.split(',') ?? []).map((pair) => {
        const at = pair.indexOf('=');
        return [pair.slice(0, at), pair.slice(at + 1)];
      }),
    ),
    logLevel: values.PORTCULLIS_LOG_LEVEL,
    publicUrl: values.PORTCULLIS_PUBLIC_URL ? new URL(values.PORTCULLIS_PUBLIC_URL) : undefined,
    allowPrivateNetworks:
      values.PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS === '1' ||
      values.PORTCULLIS_DEV_UPSTREAMS !== undefined,
  };
}
