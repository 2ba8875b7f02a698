// What scripts/build.mjs bundles, and how (the tests build the server from it too).

const common = {
  outdir: 'dist',
  outExtension: { '.js': '.mjs' },
  bundle: true,
  // Dynamic imports stay lazy (their own chunks): a command loads ts-morph,
  // redocly and TypeScript only when it needs them, and the server loads
  // PostgreSQL's and Redis's clients only when they are configured.
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: 'linked',
  logLevel: 'warning',
};

/**
 * undici's index loads all of undici (fetch, WebSocket, mocks, caches) and is
 * the largest single cost of a start; the server uses its `Agent` and
 * `errors` only (the same modules the index hands out). A name the server
 * imports beyond these fails the build ("No matching export").
 */
const undiciAgentAndErrors = {
  name: 'undici-agent-and-errors',
  setup(build) {
    build.onResolve({ filter: /^undici$/ }, () => ({ path: 'undici', namespace: 'undici-slim' }));
    build.onLoad({ filter: /.*/, namespace: 'undici-slim' }, () => ({
      contents: [
        "export { default as Agent } from 'undici/lib/dispatcher/agent.js';",
        "export { default as errors } from 'undici/lib/core/errors.js';",
      ].join('\n'),
      resolveDir: process.cwd(),
      loader: 'js',
    }));
  },
};

// The commands: packages stay external (node_modules is read as installed).
export const commandsBuild = {
  ...common,
  // Flat: a worker's entry (types-thread) sits beside every bundle that starts one.
  entryPoints: {
    cli: 'generators/cli.ts',
    'types-thread': 'generators/cli/types-thread.ts',
    'bench-compile-child': 'scripts/bench/compile-child.ts',
    portcullis: 'runtime/cli.ts',
  },
  packages: 'external',
};

// The server: its packages bundled in, so a start reads and compiles one file
// rather than resolving, reading and compiling some eight hundred (start to
// ready is mostly module loading; docs/operations.md). External stay the
// native driver, packages that find files of their own beside them at run
// time (pino's transport workers), and the drivers loaded only when
// configured, which stay as installed.
export const serverBuild = {
  ...common,
  entryPoints: { server: 'runtime/main.ts' },
  external: ['better-sqlite3', 'pino', 'pg', 'pg-native', 'ioredis'],
  plugins: [undiciAgentAndErrors],
  // Fewer bytes to read and compile, and all of them ASCII (a comment's one
  // non-ASCII character makes Node decode the whole file the slow way and V8
  // hold it in two bytes a character). Names stay; stack traces map back to
  // the sources with `node --enable-source-maps`. Licence comments go to
  // server.mjs.LEGAL.txt.
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'external',
  // CommonJS packages inside an ES module bundle call `require` for Node's own modules.
  banner: {
    js: "import { createRequire as __portcullisRequire } from 'node:module'; const require = __portcullisRequire(import.meta.url);",
  },
};
