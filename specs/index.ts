/** Every native REST provider the compiler builds, in the order they are listed. */
import coolify from './coolify/provider.ts';
import daytona from './daytona/provider.ts';
import unikraft from './unikraft/provider.ts';

export const providerDefinitions = { coolify, daytona, unikraft } as const;
