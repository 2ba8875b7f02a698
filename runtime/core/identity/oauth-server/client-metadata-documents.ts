/**
 * Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document,
 * MCP 2025-11-25): a client whose `client_id` is an https URL publishes its
 * metadata there. Portcullis fetches it through the guarded client (its SSRF
 * rules: no private or loopback address unless the development policy
 * allows them, no redirects, a deadline), reads at most 10 KiB, requires its
 * `client_id` to equal the URL and its `redirect_uris` to pass the same rules
 * as a registration, and keeps it as long as its `Cache-Control` says (at
 * most a day; five minutes when it says nothing).
 */

import { GatewayError } from '../../base/errors.ts';
import { isPlainObject } from '../../base/json-value.ts';
import type { StepUpForm } from '../../model/oauth.ts';
import type { GuardedClient } from '../../outbound/guarded-client.ts';
import { redirectUrisOf } from './client-registration.ts';
import { OAuthError } from './oauth-error.ts';
import { LOOPBACK_HOSTS, type RedirectAllowlist } from './redirect-uris.ts';

export interface ResolvedClient {
  id: string;
  name: string;
  redirectUris: string[];
  /** How the client identified itself. */
  kind: 'registered' | 'metadata_document';
  /** A registered client's step-up form as an operator chose it (none: by its redirect URIs). */
  stepUp?: StepUpForm;
}

const MAX_DOCUMENT_BYTES = 10 * 1024;
const DEFAULT_MAX_AGE_S = 300;
const LONGEST_MAX_AGE_S = 86_400;

export interface ClientMetadataDocumentsOptions {
  client: GuardedClient;
  allowlist: RedirectAllowlist;
  /** Development policy: an http URL on loopback may be a client id (tests, local clients). */
  allowLoopbackHttp: boolean;
  now?: () => number;
}

/** Whether a `client_id` has the form of a metadata document URL (not whether it is a valid one). */
export function looksLikeMetadataUrl(clientId: string): boolean {
  return clientId.startsWith('https://') || clientId.startsWith('http://');
}

export class ClientMetadataDocuments {
  readonly #options: ClientMetadataDocumentsOptions;
  readonly #now: () => number;
  readonly #cache = new Map<string, { client: ResolvedClient; until: number }>();

  constructor(options: ClientMetadataDocumentsOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  /** The client the document at `clientId` describes; an `OAuthError` (`invalid_client`) otherwise. */
  async resolve(clientId: string): Promise<ResolvedClient> {
    const cached = this.#cache.get(clientId);
    if (cached && cached.until > this.#now()) return cached.client;
    this.#cache.delete(clientId);
    return this.#fetch(clientId);
  }

  async #fetch(clientId: string): Promise<ResolvedClient> {
    const url = this.#urlOf(clientId);
    let reply: Awaited<ReturnType<GuardedClient['send']>>;
    try {
      reply = await this.#options.client.send(
        { method: 'GET', url, headers: { accept: 'application/json' } },
        { maxReplyBytes: MAX_DOCUMENT_BYTES },
      );
    } catch (error) {
      const reason = error instanceof GatewayError ? ` (${error.code})` : '';
      throw new OAuthError(
        'invalid_client',
        `client_id: the client's metadata document could not be fetched${reason}`,
        { cause: error },
      );
    }
    if (reply.status !== 200) {
      throw new OAuthError(
        'invalid_client',
        `client_id: the client's metadata document answered HTTP ${reply.status}`,
      );
    }
    let document: unknown;
    try {
      document = JSON.parse(reply.body.toString('utf8'));
    } catch {
      throw new OAuthError(
        'invalid_client',
        "client_id: the client's metadata document is not JSON",
      );
    }
    const client = this.#clientOf(clientId, document);
    const maxAge = maxAgeOf(reply.headers['cache-control']);
    if (maxAge > 0) {
      if (this.#cache.size >= 1_000) this.#cache.clear();
      this.#cache.set(clientId, { client, until: this.#now() + maxAge * 1000 });
    }
    return client;
  }

  #urlOf(clientId: string): URL {
    let url: URL;
    try {
      url = new URL(clientId);
    } catch {
      throw new OAuthError('invalid_client', 'client_id: expected a registered id or an https URL');
    }
    const loopbackHttp =
      this.#options.allowLoopbackHttp &&
      url.protocol === 'http:' &&
      LOOPBACK_HOSTS.has(url.hostname);
    if (url.protocol !== 'https:' && !loopbackHttp) {
      throw new OAuthError('invalid_client', 'client_id: a metadata document URL must be https');
    }
    if (url.pathname === '/' || url.hash !== '' || clientId.includes('#')) {
      throw new OAuthError(
        'invalid_client',
        'client_id: a metadata document URL needs a path and no fragment',
      );
    }
    if (url.username !== '' || url.password !== '' || /\/\.\.?(\/|$)/.test(url.pathname)) {
      throw new OAuthError(
        'invalid_client',
        'client_id: a metadata document URL has no credentials or dot segments',
      );
    }
    if (url.href !== clientId) {
      throw new OAuthError(
        'invalid_client',
        'client_id: a metadata document URL must be in normal form',
      );
    }
    return url;
  }

  #clientOf(clientId: string, document: unknown): ResolvedClient {
    if (!isPlainObject(document)) {
      throw new OAuthError(
        'invalid_client',
        "client_id: the client's metadata document is not a JSON object",
      );
    }
    if (document.client_id !== clientId) {
      throw new OAuthError(
        'invalid_client',
        "client_id: the metadata document's client_id is not the URL it was fetched from",
      );
    }
    const method = document.token_endpoint_auth_method;
    if ((method !== undefined && method !== 'none') || 'client_secret' in document) {
      throw new OAuthError(
        'invalid_client',
        'client_id: a metadata document client must be public (token_endpoint_auth_method none)',
      );
    }
    let redirectUris: string[];
    try {
      redirectUris = redirectUrisOf(
        document.redirect_uris,
        this.#options.allowlist,
        'invalid_client_metadata',
      );
    } catch (error) {
      throw new OAuthError(
        'invalid_client',
        `client_id: the metadata document's ${(error as Error).message}`,
      );
    }
    const name = typeof document.client_name === 'string' ? document.client_name.slice(0, 100) : '';
    return {
      id: clientId,
      name: name.trim() || new URL(clientId).host,
      redirectUris,
      kind: 'metadata_document',
    };
  }
}

/** Seconds a reply may be kept (RFC 9111): 0 for `no-store`/`no-cache`, the default when unsaid. */
function maxAgeOf(cacheControl: string | undefined): number {
  if (cacheControl === undefined) return DEFAULT_MAX_AGE_S;
  const directives = cacheControl
    .toLowerCase()
    .split(',')
    .map((d) => d.trim());
  if (directives.some((d) => d === 'no-store' || d === 'no-cache')) return 0;
  const maxAge = directives.find((d) => d.startsWith('max-age='));
  if (maxAge === undefined) return DEFAULT_MAX_AGE_S;
  const seconds = Number(maxAge.slice('max-age='.length));
  return Number.isFinite(seconds) && seconds >= 0 ? Math.min(seconds, LONGEST_MAX_AGE_S) : 0;
}
