/** Who a `client_id` is: a registered client, or a Client ID Metadata Document URL. */
import type { StepUpForm } from '../../model/oauth.ts';
import type { Store } from '../../ports/store.ts';
import {
  type ClientMetadataDocuments,
  looksLikeMetadataUrl,
  type ResolvedClient,
} from './client-metadata-documents.ts';
import { OAuthError } from './oauth-error.ts';
import type { RedirectAllowlist } from './redirect-uris.ts';
import { type StepUpChoice, stepUpChoiceOf } from './step-up-form.ts';

export class ClientDirectory {
  readonly #store: Store;
  readonly #documents: ClientMetadataDocuments;
  readonly #allowlist: RedirectAllowlist;
  readonly #stepUp: StepUpForm;

  /** `stepUp`: the form of a client that chose none and is not ChatGPT (`PORTCULLIS_OAUTH_STEP_UP`). */
  constructor(
    store: Store,
    documents: ClientMetadataDocuments,
    allowlist: RedirectAllowlist,
    stepUp: StepUpForm,
  ) {
    this.#store = store;
    this.#documents = documents;
    this.#allowlist = allowlist;
    this.#stepUp = stepUp;
  }

  /**
   * The step-up form of a client, and why: a registered one's as an operator
   * chose or by its redirect URIs (one store read); a metadata document's,
   * the default (it has no row to choose in, and checking a token fetches
   * nothing); one no longer registered, the default.
   */
  async stepUpOf(clientId: string): Promise<StepUpChoice> {
    const client =
      looksLikeMetadataUrl(clientId) || clientId.length > 100
        ? undefined
        : await this.#store.oauth.clients.byId(clientId);
    return client === undefined
      ? { form: this.#stepUp, why: 'default' }
      : this.stepUpOfResolved({
          ...client,
          redirectUris: client.redirectUris.filter((uri) => this.#allowlist.allows(uri)),
          kind: 'registered',
        });
  }

  /** The step-up form of a client resolved already (the consent page's). */
  stepUpOfResolved(client: ResolvedClient): StepUpChoice {
    return client.kind === 'registered'
      ? stepUpChoiceOf(client, this.#stepUp)
      : { form: this.#stepUp, why: 'default' };
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
      ...(client.stepUp === undefined ? {} : { stepUp: client.stepUp }),
    };
  }
}
