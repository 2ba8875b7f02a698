/** Every native REST provider the compiler builds, in the order they are listed. */
import coolify from './coolify/provider.ts';
import daytona from './daytona/provider.ts';
import githubRemote from './github/remote.ts';
import linearRemote from './linear/remote.ts';
import sentryRemote from './sentry/remote.ts';
import unikraft from './unikraft/provider.ts';

export const providerDefinitions = { coolify, daytona, unikraft } as const;

/** Every curated remote MCP server definition (`specs/<id>/remote.ts`), keyed by its folder. */
export const remoteDefinitions = {
  github: githubRemote,
  linear: linearRemote,
  sentry: sentryRemote,
} as const;
