/**
 * The upstream OAuth client engine's public interface: Portcullis signing in
 * to a remote MCP server's authorization server (seed 000 "How sign-in gets a
 * client", "Client binding", "Endpoint addresses are validated", "Protocol
 * conformance"; issue 12). The product (connections store, vault, the
 * `/connect/oauth/callback` route, the CLI) builds on these types and
 * functions only; the implementation lives in the files beside this one.
 *
 * The engine is framework-free and stateless between calls: everything it
 * needs again later (the discovery, the client, a pending sign-in, the
 * tokens) is handed back to the caller, who persists it. Where the engine
 * reads or writes durable material itself it goes through `ClientStore` and
 * `TokenStore`, which the product implements (vault-backed) and the
 * conformance command implements in memory.
 *
 * Every HTTP exchange goes through the guarded client (DNS pinned, private
 * ranges refused unless the development policy allows them, no redirects,
 * byte caps); every address the remote side chooses passes
 * `checkOAuthEndpointUrl` first and a refusal is the 422
 * `oauth_<kind>_endpoint_rejected`, whose message never holds the value.
 *
 * Errors are `GatewayError`s with codes from `runtime/core/base/errors.ts`:
 * provider text is reduced to the RFC 6749 / RFC 7591 error code (in
 * `detail.oauthError`), never echoed; secrets and tokens never appear.
 */

// The engine's types (with the model records it shares with the store).
export type * from './engine-contract.ts';

// ---------------------------------------------------------------------------
// The operations, each in its own file beside this one. Import them from here
// (the files beside this one import `engine-contract.ts`, never this).

export { parseBearerChallenge, stepUpScopes } from './bearer-challenge.ts';
export {
  buildClientMetadataDocument,
  CALLBACK_PATH,
  CLIENT_METADATA_PATH,
  callbackUrl,
  clientMetadataDocument,
  clientMetadataUrl,
  urlUnder,
} from './client-metadata.ts';
export { obtainClient } from './client-selection.ts';
export { canonicalResource, discover } from './discovery.ts';
export { checkOAuthEndpointUrl } from './endpoint-check.ts';
export { finishSignIn, startSignIn } from './sign-in.ts';
export { needsRefresh, refreshTokens, revokeTokens } from './tokens.ts';
