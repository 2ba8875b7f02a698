/**
 * The largest JSON body each HTTP surface reads, in one table (`json-body.ts`
 * reads the Express routes' bodies, `mcp-route.ts` `/mcp`'s on node:http,
 * which loads no Express: hence a file of its own). Every reader shares one
 * depth limit too, `MAX_JSON_DEPTH` (`core/base/json-text.ts`).
 */

/** The largest JSON body each surface reads, in bytes. */
export const JSON_BODY_LIMITS = {
  /** `/mcp`: a batch of calls with their arguments. */
  mcp: 4 * 1024 * 1024,
  /** The admin API: a pasted OpenAPI override or a remote definition at most. */
  admin: 1_048_576,
  /** The console's API: forms a person fills in. */
  console: 64 * 1024,
  /** `POST /oauth/register`: a client's metadata. */
  oauth: 64 * 1024,
} as const;
