/**
 * The company's OpenID providers as the sign-in needs them: each one's
 * metadata (OpenID Connect Discovery at its issuer, the document's `issuer`
 * exactly the configured one, every endpoint a safe address) and its signing
 * keys, both fetched through the guarded client (DNS pinned, private ranges
 * refused outside the development policy, no redirects, replies capped) and
 * kept in this process: the metadata an hour, the keys as oauth4webapi's
 * JWKS cache keeps them (fetched again when a token names a key it lacks).
 * The client secret is read from the gateway's environment at each use,
 * never stored, never shown.
 */
import * as oauth from 'oauth4webapi';
import { GatewayError } from '../../base/errors.ts';
import type { IdentityProvider } from '../../model/identity.ts';
import type { GuardedClient } from '../../outbound/guarded-client.ts';
import type { Redactor } from '../../outbound/redaction.ts';
import { endpointRefusal } from '../oauth-client/endpoint-check.ts';
import type { UpstreamOAuthPolicy } from '../oauth-client/engine-contract.ts';
import { guardedFetch } from '../oauth-client/oauth-http.ts';

const METADATA_TTL_MS = 60 * 60_000;

export interface IdpDirectoryOptions {
  http: GuardedClient;
  policy: UpstreamOAuthPolicy;
  /** `PORTCULLIS_IDP_*` variables, by name. */
  secrets: Readonly<Record<string, string>>;
  now: () => Date;
}

/** What a sign-in at one provider works with. */
export interface IdpPeer {
  metadata: oauth.AuthorizationServer;
  client: oauth.Client;
  /** The request options every oauth4webapi call gets (the guarded fetch, the JWKS cache). */
  options: {
    [oauth.customFetch]: ReturnType<typeof guardedFetch>;
    [oauth.allowInsecureRequests]: true;
    [oauth.jwksCache]: oauth.JWKSCacheInput;
  };
}

export class IdpDirectory {
  readonly #options: IdpDirectoryOptions;
  readonly #fetch: ReturnType<typeof guardedFetch>;
  readonly #metadata = new Map<string, { at: number; metadata: oauth.AuthorizationServer }>();
  readonly #keys = new Map<string, oauth.JWKSCacheInput>();

  constructor(options: IdpDirectoryOptions) {
    this.#options = options;
    this.#fetch = guardedFetch(options.http);
  }

  /** Whether an issuer is an address the gateway may reach (checked when a provider is added). */
  issuerProblem(issuer: string): string | undefined {
    const verdict = endpointRefusal(issuer, this.#options.policy);
    if (verdict.why !== '') return verdict.why;
    if (verdict.url.search !== '') return 'query';
    return undefined;
  }

  /** The provider's metadata and keys, from this process's cache or discovered now. */
  async peer(provider: IdentityProvider): Promise<IdpPeer> {
    const options = {
      [oauth.customFetch]: this.#fetch,
      [oauth.allowInsecureRequests]: true as const,
      [oauth.jwksCache]: this.#jwksCache(provider.issuer),
    };
    return {
      metadata: await this.#metadataOf(provider.issuer),
      client: { client_id: provider.clientId },
      options,
    };
  }

  /** The client secret, from the environment; `idp_secret_missing` when it is not there. */
  secretOf(provider: IdentityProvider): string {
    const secret = this.#options.secrets[provider.clientSecretEnv];
    if (secret === undefined || secret === '')
      throw new GatewayError('idp_secret_missing', undefined, {
        detail: { provider: provider.name, variable: provider.clientSecretEnv },
      });
    return secret;
  }

  /** The guarded fetch with `redactor` keeping a request's secrets (an ID token, the client secret) out of errors. */
  fetchKeeping(redactor: Redactor): ReturnType<typeof guardedFetch> {
    return guardedFetch(this.#options.http, redactor);
  }

  /** Forgets what was cached of an issuer (a provider removed or added again). */
  forget(issuer: string): void {
    this.#metadata.delete(issuer);
    this.#keys.delete(issuer);
  }

  #jwksCache(issuer: string): oauth.JWKSCacheInput {
    let cache = this.#keys.get(issuer);
    if (!cache) {
      cache = {};
      this.#keys.set(issuer, cache);
    }
    return cache;
  }

  async #metadataOf(issuer: string): Promise<oauth.AuthorizationServer> {
    const now = this.#options.now().getTime();
    const cached = this.#metadata.get(issuer);
    if (cached && now - cached.at < METADATA_TTL_MS) return cached.metadata;
    const issuerUrl = new URL(issuer);
    let metadata: oauth.AuthorizationServer;
    try {
      const response = await oauth.discoveryRequest(issuerUrl, {
        algorithm: 'oidc',
        [oauth.customFetch]: this.#fetch,
        [oauth.allowInsecureRequests]: true,
      });
      metadata = await oauth.processDiscoveryResponse(issuerUrl, response);
    } catch (error) {
      throw unavailable(issuerUrl, 'discovery', error);
    }
    for (const field of ['authorization_endpoint', 'token_endpoint', 'jwks_uri'] as const) {
      const verdict = endpointRefusal(metadata[field], this.#options.policy);
      if (verdict.why !== '')
        throw new GatewayError('idp_unavailable', undefined, {
          field,
          detail: { issuerHost: issuerUrl.host, why: verdict.why },
        });
    }
    this.#metadata.set(issuer, { at: now, metadata });
    return metadata;
  }
}

function unavailable(issuer: URL, step: string, error: unknown): GatewayError {
  if (error instanceof GatewayError && error.code !== 'idp_unavailable')
    return new GatewayError('idp_unavailable', undefined, {
      detail: { issuerHost: issuer.host, step, cause: error.code },
    });
  return new GatewayError('idp_unavailable', undefined, {
    detail: {
      issuerHost: issuer.host,
      step,
      ...(error instanceof oauth.OperationProcessingError ? { cause: error.code } : {}),
    },
  });
}
