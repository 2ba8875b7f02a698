// Bundles the TypeScript entry points into dist/ with esbuild, so commands start
// as plain Node (no TypeScript loader on the hot path). Packages stay external.
import { build } from 'esbuild';

await build({
  entryPoints: {
    'generators/cli': 'generators/cli.ts',
    'generators/types-thread': 'generators/cli/types-thread.ts',
  },
  outdir: 'dist',
  outExtension: { '.js': '.mjs' },
  bundle: true,
  packages: 'external',
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: 'linked',
  logLevel: 'warning',
});
