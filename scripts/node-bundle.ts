/**
 * How the scripts bundle a TypeScript entry for plain Node, as `npm run
 * build` bundles the product: ESM for Node 20, packages external (resolved
 * from the repo's node_modules, so the bundle must sit under the repo).
 */
import type { BuildOptions } from 'esbuild';

export const NODE_BUNDLE = {
  bundle: true,
  packages: 'external',
  platform: 'node',
  format: 'esm',
  target: 'node20',
  logLevel: 'warning',
} as const satisfies BuildOptions;
