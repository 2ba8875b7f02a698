/**
 * Gateway replicas as an operator runs them: 2–3 server processes
 * (`runtime/main.ts`, each its own data folder and free port) sharing one
 * PostgreSQL schema, one Redis and one master key, behind Debian's nginx
 * round-robin with the configuration in `deploy/nginx/`. The first replica
 * starts alone (it migrates the store and prints the admin token), the others
 * together. `cli` runs the `portcullis` command on the same store.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.ts';
import { type Nginx, startNginx } from './nginx.ts';
import { testSchemas } from './postgres.ts';
import { TEST_REDIS_URL } from './redis.ts';
import { type CliOutcome, runPortcullisHere } from './run-cli.ts';
import { runServer, type ServerProcess } from './run-server.ts';

export interface ReplicaSetOptions {
  /** How many replicas; default 3. */
  count?: number;
  /** The store's URL; default a new schema of the test database. */
  databaseUrl?: string;
  /** The shared state's URL; default the test Redis. */
  redisUrl?: string;
  /** More variables for every replica. */
  environment?: Record<string, string>;
  /** More variables for the replica at `index` (0: the first started), over `environment`. */
  replicaEnvironment?: (index: number) => Record<string, string>;
  /**
   * Commands to run once the first replica has made the store, while the
   * others start (connections, agents, grants): `cli` as the set's own.
   */
  prepare?: (cli: ReplicaSet['cli']) => Promise<void>;
  /** Node's arguments for every replica; default the entry from source (`--import tsx runtime/main.ts`). */
  entry?: readonly string[];
}

export interface ReplicaSet {
  /** nginx's address: what agents use (and `PORTCULLIS_PUBLIC_URL`). */
  url: string;
  replicas: ServerProcess[];
  adminToken: string;
  /** The variables every replica shares (store, Redis, master key, ...). */
  environment: Record<string, string>;
  nginx: Nginx;
  /** `portcullis <args>` on the replicas' store, in this process. */
  cli(args: string[], env?: Record<string, string>): Promise<CliOutcome>;
  close(): Promise<void>;
}

export async function startReplicaSet(options: ReplicaSetOptions = {}): Promise<ReplicaSet> {
  const schemas = testSchemas();
  const databaseUrl = options.databaseUrl ?? schemas.urlFor(await schemas.create());
  const nginxPort = await freePort();
  const url = `http://127.0.0.1:${nginxPort}`;
  const environment: Record<string, string> = {
    DATABASE_URL: databaseUrl,
    REDIS_URL: options.redisUrl ?? TEST_REDIS_URL,
    PORTCULLIS_MASTER_KEY: randomBytes(32).toString('base64url'),
    PORTCULLIS_PUBLIC_URL: url,
    PORTCULLIS_TRUSTED_PROXIES: 'loopback',
    PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1',
    ...options.environment,
  };
  const replicas: ServerProcess[] = [];
  let nginx: Nginx | undefined;
  const close = async () => {
    await nginx?.stop();
    await Promise.all(replicas.map((replica) => replica.stop()));
    await schemas.dropAll();
  };
  const start = (token: boolean, index: number) =>
    runServer(
      {
        ...environment,
        ...options.replicaEnvironment?.(index),
        PORTCULLIS_DATA_DIR: mkdtempSync(join(tmpdir(), 'portcullis-replica-')),
      },
      {
        ...(token
          ? {
              started: (stdout: string) =>
                /admin token \(shown once; keep it\): \S+\n/.test(stdout),
            }
          : {}),
        ...(options.entry === undefined ? {} : { entry: options.entry }),
      },
    );
  const cliData = mkdtempSync(join(tmpdir(), 'portcullis-replica-cli-'));
  const cli: ReplicaSet['cli'] = (args, env = {}) =>
    runPortcullisHere(args, { ...environment, PORTCULLIS_DATA_DIR: cliData, ...env });
  try {
    replicas.push(await start(true, 0));
    const [others] = await Promise.all([
      Promise.all(Array.from({ length: (options.count ?? 3) - 1 }, (_, i) => start(false, i + 1))),
      options.prepare?.(cli),
    ]);
    replicas.push(...others);
    nginx = await startNginx(
      nginxPort,
      replicas.map((replica) => new URL(replica.url).host),
    );
  } catch (error) {
    await close();
    throw error;
  }
  return {
    url,
    replicas,
    adminToken: replicas[0]!.adminToken!,
    environment,
    nginx,
    cli,
    close,
  };
}
