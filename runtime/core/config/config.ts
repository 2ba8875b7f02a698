/**
 * The gateway's configuration, from the environment, validated with zod. A bad
 * value is one clear error naming the variable and what it takes; the master
 * key's value never appears in it.
 */
import { z } from 'zod';

const port = z.coerce.number().int('a whole number').min(1, 'from 1').max(65_535, 'to 65535');

export const ConfigSchema = z.strictObject({
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: port.default(8080),
  PORTCULLIS_DATA_DIR: z.string().min(1).default('./data'),
  /** `postgres://…` selects PostgreSQL; unset, the embedded SQLite file in the data folder. */
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'a postgres:// or postgresql:// URL')
    .optional(),
  /** 32 bytes, base64 or base64url; unset, a key file in the data folder (created on first start). */
  PORTCULLIS_MASTER_KEY: z
    .string()
    .refine(
      (value) => Buffer.from(value, 'base64url').byteLength === 32,
      '32 bytes in base64 or base64url',
    )
    .optional(),
});

export interface Config {
  host: string;
  port: number;
  dataDir: string;
  databaseUrl: string | undefined;
  masterKey: Buffer | undefined;
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
    masterKey: values.PORTCULLIS_MASTER_KEY
      ? Buffer.from(values.PORTCULLIS_MASTER_KEY, 'base64url')
      : undefined,
  };
}
