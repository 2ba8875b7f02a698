// The import rule `npm run deps` checks (part of `npm run check`): no cycle
// between files in runtime/ and generators/, no cycle between folders in
// runtime/, every import resolves, and runtime's folders import downward only.
// Type-only imports count (tsPreCompilationDeps), so a cycle cannot hide
// behind `import type`.

// runtime's layers, bottom first. A folder may import its own layer and the
// layers listed before it, never one listed after it. Folders that share a
// layer are siblings; the sibling rules further down say which of them may
// import which.
const LAYERS = [
  ['base', '^runtime/core/base/'],
  ['model', '^runtime/core/model/'],
  ['ports', '^runtime/core/ports/'],
  ['catalog', '^runtime/core/catalog/'],
  ['governance', '^runtime/core/governance/'],
  ['discovery', '^runtime/core/discovery/'],
  ['outbound', '^runtime/core/outbound/'],
  ['vault', '^runtime/core/vault/'],
  ['mcp/wire', '^runtime/core/mcp/wire/'],
  ['mcp/server, mcp/client', '^runtime/core/mcp/(server|client)/'],
  ['tasks', '^runtime/core/tasks/'],
  ['identity', '^runtime/core/identity/'],
  ['sources', '^runtime/core/sources/'],
  ['pipeline', '^runtime/core/pipeline/'],
  ['operator', '^runtime/core/operator/'],
  ['config', '^runtime/config/'],
  [
    'adapters/sql, adapters/redis, adapters/metrics, adapters/otel, adapters/journal',
    '^runtime/adapters/(sql|redis|metrics|otel|journal)/',
  ],
  ['compose', '^runtime/compose/'],
  ['adapters/http, adapters/cli', '^runtime/adapters/(http|cli)/'],
  ['entry points (runtime/*.ts)', '^runtime/[^/]+$'],
];

const layerRules = LAYERS.slice(0, -1).map(([name, path], index) => ({
  name: `layer-${name.replace(/[^a-z]+/g, '-').replace(/-$/, '')}`,
  severity: 'error',
  comment: `${name} imports only itself and the layers below it (${LAYERS.slice(0, index)
    .map(([below]) => below)
    .join(' < ')}).`,
  from: { path },
  to: {
    path: '^runtime/',
    pathNot: LAYERS.slice(0, index + 1).map(([, allowed]) => allowed),
  },
}));

// Siblings in one layer that must not lean on each other.
const siblingRules = [
  ['mcp/server', 'mcp/client'],
  ['mcp/client', 'mcp/server'],
  ['adapters/sql', 'adapters/redis'],
  ['adapters/redis', 'adapters/sql'],
  ['adapters/journal', 'adapters/sql'],
  ['adapters/journal', 'adapters/redis'],
  ['adapters/http', 'adapters/cli'],
  ['adapters/cli', 'adapters/http'],
  ['sources/native-rest', 'sources/remote-mcp'],
  ['sources/remote-mcp', 'sources/native-rest'],
].map(([from, to]) => ({
  name: `sibling-${from.replace(/\//g, '-')}-not-${to.replace(/\//g, '-')}`,
  severity: 'error',
  comment: `${from} and ${to} share a layer; ${from} does not import ${to}.`,
  from: { path: `^runtime/(core/)?${from}/` },
  to: { path: `^runtime/(core/)?${to}/` },
}));

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'No cycle between files in runtime/ or generators/. Break it by moving what both sides need into a module below them.',
      from: { path: '^(runtime|generators)/' },
      to: { circular: true },
    },
    {
      name: 'no-folder-cycle',
      scope: 'folder',
      severity: 'error',
      comment: "No cycle between folders in runtime/: a folder's files import downward only.",
      from: { path: '^runtime/' },
      to: { path: '^runtime/', circular: true },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'Every import resolves to a file or an installed package.',
      from: {},
      to: { couldNotResolve: true },
    },
    {
      name: 'core-stays-in-core',
      severity: 'error',
      comment:
        'runtime/core knows nothing of adapters, compose, config or the entry points; they are handed to it at construction.',
      from: { path: '^runtime/core/' },
      to: { path: ['^runtime/(adapters|compose|config)/', '^runtime/[^/]+$'] },
    },
    {
      name: 'operator-only-from-adapters-and-compose',
      severity: 'error',
      comment:
        'The operator verbs (shared by the CLI and the admin API) are called by adapters and compose only.',
      from: { path: '^runtime/', pathNot: '^runtime/(adapters|compose|core/operator)/' },
      to: { path: '^runtime/core/operator/' },
    },
    {
      name: 'console-runs-in-the-browser',
      severity: 'error',
      comment:
        'The console (runtime/console/, bundled for the browser) imports only core/base of the runtime; it reaches the rest through /console/api.',
      from: { path: '^runtime/console/' },
      to: { path: '^runtime/', pathNot: ['^runtime/console/', '^runtime/core/base/'] },
    },
    {
      name: 'mcp-wire-only-base',
      severity: 'error',
      comment:
        'The MCP wire layer (framing, versions, header rules) shared by server and client imports only core/base.',
      from: { path: '^runtime/core/mcp/wire/' },
      to: { path: '^runtime/', pathNot: ['^runtime/core/mcp/wire/', '^runtime/core/base/'] },
    },
    {
      name: 'identity-oauth-client-alone',
      severity: 'error',
      comment:
        "identity/oauth-client (signing in upstream) does not import the gateway's own authorization server or principals.",
      from: { path: '^runtime/core/identity/oauth-client/' },
      to: { path: '^runtime/core/identity/(oauth-server|principals)/' },
    },
    {
      name: 'identity-principals-below-oauth-server',
      severity: 'error',
      comment:
        'identity/principals sits under identity/oauth-server, which issues tokens for them.',
      from: { path: '^runtime/core/identity/principals/' },
      to: { path: '^runtime/core/identity/(oauth-server|oauth-client)/' },
    },
    {
      name: 'sources-root-below-its-kinds',
      severity: 'error',
      comment:
        'The source contract (sources/executor.ts, connection-health.ts) is what native-rest and remote-mcp implement; it imports neither.',
      from: { path: '^runtime/core/sources/[^/]+$' },
      to: { path: '^runtime/core/sources/[^/]+/' },
    },
    {
      name: 'sql-store-above-its-parts',
      severity: 'error',
      comment:
        "adapters/sql's own files (the store, opening it) import its tables/, migrations/ and rows/; those never import them.",
      from: { path: '^runtime/adapters/sql/[^/]+/' },
      to: { path: '^runtime/adapters/sql/[^/]+$' },
    },
    {
      name: 'sql-tables-at-the-bottom',
      severity: 'error',
      comment:
        'adapters/sql/tables (the schema and its constraints) imports neither rows/ nor migrations/.',
      from: { path: '^runtime/adapters/sql/tables/' },
      to: { path: '^runtime/adapters/sql/(rows|migrations)/' },
    },
    ...siblingRules,
    ...layerRules,
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
    reporterOptions: {
      text: { highlightFocused: true },
    },
  },
};
