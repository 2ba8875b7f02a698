/**
 * The server openapi-mcp-generator 4.0.1 generates for the quotas spec with
 * `--transport streamable-http`, installed and built in .cache/bench/gateway
 * (once per spec, generator and pin), run as `node build/index.js`.
 *
 * Two adaptations, both reported under the table:
 * - The generated package.json asks for @modelcontextprotocol/sdk ^1.10.0, which
 *   resolves to an SDK whose Node transport reads the request body again
 *   through @hono/node-server; the generated Hono handler has already read it,
 *   and the process dies on its first request ("ReadableStream is locked").
 *   We pin 1.24.3, the last SDK before that change.
 * - The generated handler connects every session's transport to one shared
 *   Server, so responses go to the most recent session only: all slots share
 *   one session (concurrent calls on it are fine).
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { access, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ensureScratchPackage, OPENAPI_MCP_GENERATOR } from '../../scratch-packages.ts';
import { SCRATCH } from '../paths.ts';
import { freePort, startServerChild } from '../server-child.ts';
import { type WrittenSpec, writeQuotasSpec } from './quotas-spec.ts';
import type { GatewayTarget } from './target.ts';

const SDK_PIN = '1.24.3';
const PROJECT = join(SCRATCH, 'gateway', 'openapi-mcp-generator');

export const openapiMcpGenerator: GatewayTarget = {
  name: 'openapi-mcp-generator',
  async start(upstreamUrl) {
    const generator = await ensureScratchPackage(SCRATCH, OPENAPI_MCP_GENERATOR);
    const server = await ensureGeneratedServer(generator, await writeQuotasSpec());
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    const child = await startServerChild({
      name: this.name,
      command: process.execPath,
      args: [join('build', 'index.js')],
      cwd: server,
      env: { PORT: String(port), API_BASE_URL: upstreamUrl },
      ready: { kind: 'poll', url: `${origin}/health` },
    });
    return {
      url: `${origin}/mcp`,
      headers: {},
      // The generator names the tool after the operationId.
      toolName: 'getUserQuotas',
      arguments: {},
      mode: 'mcp',
      sessions: 'shared',
      pid: child.pid,
      notes: [
        `${OPENAPI_MCP_GENERATOR.name}@${OPENAPI_MCP_GENERATOR.version}: @modelcontextprotocol/sdk pinned to ${SDK_PIN} (with ^1.10.0 → latest, the generated server dies on its first request); one session shared by all slots (the generated server answers only its newest session); it logs every request to stderr (its log file)`,
      ],
      close: child.close,
    };
  },
};

/** The generated project, built; regenerated when the spec, the generator or the pin changes. */
async function ensureGeneratedServer(generator: string, spec: WrittenSpec): Promise<string> {
  const server = join(PROJECT, 'server');
  const stampFile = join(server, '.bench-stamp');
  const stamp = createHash('sha256')
    .update(JSON.stringify([spec.sha256, OPENAPI_MCP_GENERATOR.version, SDK_PIN]))
    .digest('hex');
  if (
    (await readOptional(stampFile)) === stamp &&
    (await exists(join(server, 'build', 'index.js')))
  )
    return server;
  await mkdir(PROJECT, { recursive: true });
  console.error(`bench: generating and building the openapi-mcp-generator server in ${server}`);
  const bin = join(generator, 'bin', 'openapi-mcp-generator.js');
  run(
    process.execPath,
    [bin, '--input', spec.path, '--output', server, '--transport', 'streamable-http', '--force'],
    PROJECT,
  );
  run(
    'npm',
    [
      'install',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
      '--save-exact',
      `@modelcontextprotocol/sdk@${SDK_PIN}`,
    ],
    server,
  );
  run('npm', ['run', '-s', 'build'], server);
  await writeFile(stampFile, stamp);
  return server;
}

function run(command: string, args: string[], cwd: string): void {
  // Their output goes to stderr: stdout is the benchmark's table.
  const result = spawnSync(command, args, {
    cwd,
    stdio: ['ignore', process.stderr, process.stderr],
  });
  if (result.status !== 0)
    throw new Error(`${[command, ...args].join(' ')} exited with ${result.status} in ${cwd}`);
}

async function readOptional(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch {
    return undefined;
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}
