/** Who a `client_id` is: a registered client, or a Client ID Metadata Document URL. */
import type { Store } from '../../ports/store.ts';
import {
  type ClientMetadataDocuments,
  looksLikeMetadataUrl,
  type ResolvedClient,
} from './client-metadata-documents.ts';
import { OAuthError } from './oauth-error.ts';
import type { RedirectAllowlist } from './redirect-uris.ts';

export class ClientDirectory {
  readonly #store: Store;
  readonly #documents: ClientMetadataDocuments;
  readonly #allowlist: RedirectAllowlist;

  constructor(store: Store, documents: ClientMetadataDocuments, allowlist: RedirectAllowlist) {
    this.#store = store;
    this.#documents = documents;
    this.#allowlist = allowlist;
  }

  /** The client, or an `OAuthError` (`invalid_client`) saying why not. */
  async resolve(clientId: string): Promise<ResolvedClient> {
    if (looksLikeMetadataUrl(clientId)) return this.#documents.resolve(clientId);
    const client =
      clientId.length <= 100 ? await this.#store.oauth.clients.byId(clientId) : undefined;
    if (!client)
      throw new OAuthError('invalid_client', 'client_id: no client is registered with this id');
    return {
      id: client.id,
      name: client.name,
      // Registered before an allowlist was set, or under another one: only what it allows now.
      redirectUris: client.redirectUris.filter((uri) => this.#allowlist.allows(uri)),
      kind: 'registered',
    };
  }
}
