/**
 * The deployments the benchmark compares, each started once and kept up for
 * the whole run, every gateway process the built `dist/server.mjs` (what
 * `npm start` and the Dockerfile run):
 *
 * - `sqlite`: one replica on SQLite, in-process shared state;
 * - `postgres+redis`: one replica on PostgreSQL (a schema of its own in the
 *   test database, dropped after) and Redis (a database index of its own);
 * - `2 replicas+nginx`: two replicas on another such schema and index,
 *   behind Debian's nginx round-robin with `deploy/nginx/portcullis.conf`;
 * - with `+limits`: the same with an agent and a connection rate limit of
 *   1,000,000 a minute, so every call takes a token from both buckets and
 *   none is refused (in-process on SQLite, on Redis with it);
 * - `sqlite+tracing-…`: one replica on SQLite with OpenTelemetry on, as the
 *   `OTEL_*` variables turn it on, its spans sent over OTLP/HTTP (protobuf)
 *   to a receiver in the benchmark's process: `sampled off`
 *   (`parentbased_traceidratio` 0: spans made, none recorded) or `full`
 *   (`always_on`: every span recorded and exported).
 *
 * The replica sets are the tests' own (test/support/replicas.ts: nginx,
 * runServer); each deployment gets the same connection to the benchmark's
 * upstream, reviewed, and one agent granted its reads.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { testSchemas } from '../../../test/support/postgres.ts';
import { TEST_REDIS_URL } from '../../../test/support/redis.ts';
import { startReplicaSet } from '../../../test/support/replicas.ts';
import { type CliOutcome, runPortcullisHere } from '../../../test/support/run-cli.ts';
import { runServer } from '../../../test/support/run-server.ts';

/** The built server, as `npm start` runs it (relative to the checkout, runServer's working folder). */
const DIST_ENTRY = ['dist/server.mjs'];
export const BENCH_TOOL = 'weather__get_weather';

export interface DeploymentSpec {
  name: string;
  store: 'sqlite' | 'postgres';
  replicas: 1 | 2;
  limits: boolean;
  /** OpenTelemetry on: nothing sampled, or everything. */
  tracing?: 'sampled off' | 'full';
}

export const DEPLOYMENTS: DeploymentSpec[] = [
  { name: 'sqlite', store: 'sqlite', replicas: 1, limits: false },
  { name: 'postgres+redis', store: 'postgres', replicas: 1, limits: false },
  { name: '2 replicas+nginx', store: 'postgres', replicas: 2, limits: false },
  { name: 'sqlite+limits', store: 'sqlite', replicas: 1, limits: true },
  { name: 'postgres+redis+limits', store: 'postgres', replicas: 1, limits: true },
  {
    name: 'sqlite+tracing-sampled-off',
    store: 'sqlite',
    replicas: 1,
    limits: false,
    tracing: 'sampled off',
  },
  { name: 'sqlite+tracing-full', store: 'sqlite', replicas: 1, limits: false, tracing: 'full' },
];

export interface Deployment {
  spec: DeploymentSpec;
  /** The MCP endpoint agents call (nginx's for a replica set). */
  endpoint: string;
  agentKey: string;
  gatewayPids: number[];
  /** nginx's master process, for a replica set. */
  nginxPid: number | undefined;
  /** The `application_name` its PostgreSQL connections carry (their backends' CPU is read by it). */
  applicationName: string | undefined;
  close(): Promise<void>;
}

const LIMITS_ON = {
  PORTCULLIS_RATE_LIMIT_AGENT_PER_MINUTE: '1000000',
  PORTCULLIS_RATE_LIMIT_CONNECTION_PER_MINUTE: '1000000',
};

/** The `OTEL_*` variables of a traced deployment, its spans sent to `otlp`. */
function tracingEnvironment(spec: DeploymentSpec, otlp: string): Record<string, string> {
  if (spec.tracing === undefined) return {};
  return {
    OTEL_EXPORTER_OTLP_ENDPOINT: otlp,
    OTEL_SERVICE_NAME: 'portcullis-bench',
    ...(spec.tracing === 'full'
      ? { OTEL_TRACES_SAMPLER: 'always_on' }
      : { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' }),
  };
}

type Cli = (args: string[]) => Promise<CliOutcome>;

/** The connection, its review, one agent and its grant: the agent's key. */
async function prepare(cli: Cli, upstream: string): Promise<string> {
  const run = async (...args: string[]) => {
    const outcome = await cli([...args, '--json']);
    if (outcome.code !== 0) throw new Error(`portcullis ${args[0]}: ${outcome.stderr}`);
    return JSON.parse(outcome.stdout || '{}') as Record<string, unknown>;
  };
  await run('connect-url', upstream, '--name', 'weather');
  await run('review', 'weather', '--all');
  const { key } = await run('agent', 'create', 'bench');
  await run('grant', 'bench', 'weather');
  return String(key);
}

export async function startDeployment(
  spec: DeploymentSpec,
  upstream: string,
  redisDb: number,
  otlp: string,
): Promise<Deployment> {
  const limits = spec.limits ? LIMITS_ON : {};
  if (spec.store === 'sqlite') {
    const dataDir = mkdtempSync(join(tmpdir(), 'portcullis-bench-deploy-'));
    const env = {
      PORTCULLIS_DATA_DIR: dataDir,
      PORTCULLIS_MASTER_KEY: randomBytes(32).toString('base64url'),
      PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1',
      ...limits,
    };
    // The store made and set up by the command first, then the server starts on it.
    const agentKey = await prepare((args) => runPortcullisHere(args, env), upstream);
    const server = await runServer(
      { ...env, ...tracingEnvironment(spec, otlp) },
      { entry: DIST_ENTRY },
    );
    return {
      spec,
      endpoint: `${server.url}/mcp`,
      agentKey,
      gatewayPids: [server.child.pid!],
      nginxPid: undefined,
      applicationName: undefined,
      async close() {
        await server.stop();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  }
  const schemas = testSchemas();
  const applicationName = `portcullis-bench-${randomBytes(4).toString('hex')}`;
  const databaseUrl = new URL(schemas.urlFor(await schemas.create()));
  databaseUrl.searchParams.set('application_name', applicationName);
  const redisUrl = new URL(TEST_REDIS_URL);
  redisUrl.pathname = `/${redisDb}`;
  let agentKey = '';
  try {
    const set = await startReplicaSet({
      count: spec.replicas,
      databaseUrl: databaseUrl.toString(),
      redisUrl: redisUrl.toString(),
      environment: limits,
      entry: DIST_ENTRY,
      prepare: async (cli) => {
        agentKey = await prepare(cli, upstream);
      },
    });
    // One replica is called directly; a set through nginx.
    const endpoint = spec.replicas === 1 ? set.replicas[0]!.url : set.url;
    return {
      spec,
      endpoint: `${endpoint}/mcp`,
      agentKey,
      gatewayPids: set.replicas.map((replica) => replica.child.pid!),
      nginxPid: spec.replicas === 1 ? undefined : set.nginx.pid,
      applicationName,
      async close() {
        await set.close();
        await schemas.dropAll();
      },
    };
  } catch (error) {
    await schemas.dropAll();
    throw error;
  }
}
