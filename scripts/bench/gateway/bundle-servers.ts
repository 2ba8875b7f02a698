/**
 * Our server children, bundled with esbuild into .cache/bench-gateway/bin as
 * `npm run build` bundles the product: plain Node at run time, no TypeScript
 * loader in the measured process (its memory or its startup), packages external.
 */
import { join } from 'node:path';
import { build } from 'esbuild';
import { ROOT, WORK } from './paths.ts';

export const SERVER_ENTRIES = [
  'upstream',
  'reverse-proxy',
  'lean-reference',
  'sdk-minimal',
  'portcullis',
  'mcp-upstream',
] as const;
/**
 * Entries bundled only when their configuration starts: they import runtime
 * modules that a build may not have yet (remote MCP connections).
 */
export const OPTIONAL_ENTRIES = ['portcullis-forwarding'] as const;
/** The runtime modules those entries import by a declared name (servers/remote-connections.d.ts). */
export const REMOTE_CONNECTIONS = join(
  ROOT,
  'runtime',
  'core',
  'operator',
  'remote-connections.ts',
);
const ALIASES = { 'portcullis-bench:remote-connections': REMOTE_CONNECTIONS };
export type ServerEntry = (typeof SERVER_ENTRIES)[number] | (typeof OPTIONAL_ENTRIES)[number];

const BIN = join(WORK, 'bin');

export function bundledServer(entry: ServerEntry): string {
  return join(BIN, `${entry}.mjs`);
}

export async function bundleServers(
  entries: readonly ServerEntry[] = SERVER_ENTRIES,
): Promise<void> {
  await build({
    entryPoints: Object.fromEntries(
      entries.map((entry) => [
        entry,
        join(ROOT, 'scripts', 'bench', 'gateway', 'servers', `${entry}.ts`),
      ]),
    ),
    outdir: BIN,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    alias: ALIASES,
    packages: 'external',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'warning',
  });
}
