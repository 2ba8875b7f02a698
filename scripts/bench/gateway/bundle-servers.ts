/**
 * Our server children, bundled with esbuild into .cache/bench-gateway/bin as
 * `npm run build` bundles the product: plain Node at run time, no TypeScript
 * loader in the measured process (its memory or its startup), packages external.
 */
import { join } from 'node:path';
import { build } from 'esbuild';
import { NODE_BUNDLE } from '../../node-bundle.ts';
import { ROOT, WORK } from './paths.ts';

export const SERVER_ENTRIES = [
  'upstream',
  'reverse-proxy',
  'lean-reference',
  'sdk-minimal',
  'portcullis',
  'portcullis-core',
  'mcp-upstream',
  'portcullis-forwarding',
  'portcullis-sessions',
] as const;
export type ServerEntry = (typeof SERVER_ENTRIES)[number];

const BIN = join(WORK, 'bin');

export function bundledServer(entry: ServerEntry): string {
  return join(BIN, `${entry}.mjs`);
}

/**
 * The same server from another build, for an A/B in one run: its
 * `.cache/bench-gateway/bin` copied to a folder inside a checkout (so its
 * packages resolve), named by `BENCH_GATEWAY_BASE_BIN`. Throws when unset,
 * which skips the configuration with the reason.
 */
export function baseServer(entry: ServerEntry): string {
  const folder = process.env.BENCH_GATEWAY_BASE_BIN;
  if (folder === undefined || folder === '')
    throw new Error("set BENCH_GATEWAY_BASE_BIN to a copy of another build's bench bin folder");
  return join(folder, `${entry}.mjs`);
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
    ...NODE_BUNDLE,
  });
}
