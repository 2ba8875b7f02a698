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
  'mcp-upstream',
  'portcullis-forwarding',
] as const;
export type ServerEntry = (typeof SERVER_ENTRIES)[number];

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
    ...NODE_BUNDLE,
  });
}
