// Bundles the TypeScript entry points into dist/ with esbuild, so commands start
// as plain Node (no TypeScript loader on the hot path). What goes in, and how:
// build-options.mjs.
import { rmSync } from 'node:fs';
import { build } from 'esbuild';
import { build as buildConsole } from 'vite';
import { commandsBuild, serverBuild } from './build-options.mjs';

// Chunk names carry hashes: start from an empty folder so no stale chunk lingers.
rmSync('dist', { recursive: true, force: true });

await build(commandsBuild);
await build(serverBuild);

// The operator console (runtime/console/, Preact): its pages into dist/console/, served at /console.
await buildConsole({ configFile: 'runtime/console/vite.config.ts' });
