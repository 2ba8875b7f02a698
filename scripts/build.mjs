// Bundles the TypeScript entry points into dist/ with esbuild, so commands start
// as plain Node (no TypeScript loader on the hot path). Packages stay external.
import { rmSync } from 'node:fs';
import { build } from 'esbuild';
import { build as buildConsole } from 'vite';

// Chunk names carry hashes: start from an empty folder so no stale chunk lingers.
rmSync('dist', { recursive: true, force: true });

await build({
  // Flat: a worker's entry (types-thread) sits beside every bundle that starts one.
  entryPoints: {
    cli: 'generators/cli.ts',
    'types-thread': 'generators/cli/types-thread.ts',
    'bench-compile-child': 'scripts/bench/compile-child.ts',
    server: 'runtime/main.ts',
    portcullis: 'runtime/cli.ts',
  },
  outdir: 'dist',
  outExtension: { '.js': '.mjs' },
  bundle: true,
  // Dynamic imports stay lazy (their own chunks): a command loads ts-morph,
  // redocly and TypeScript only when it needs them.
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  packages: 'external',
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: 'linked',
  logLevel: 'warning',
});

// The operator console (runtime/console/, Preact): its pages into dist/console/, served at /console.
await buildConsole({ configFile: 'runtime/console/vite.config.ts' });
