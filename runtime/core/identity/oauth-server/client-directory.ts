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
   * The step-up form of a client, and why: a registered one's as it chose or
   * by its redirect URIs; a metadata document's by its redirect URIs (it has
   * no row to choose in); one that cannot be resolved now, the default.
   */
  async stepUpOf(clientId: string): Promise<StepUpChoice> {
    try {
      return this.stepUpOfResolved(await this.resolve(clientId));
    } catch (error) {
      if (!(error instanceof OAuthError)) throw error;
      return { form: this.#stepUp, why: 'default' };
    }
  }

  stepUpOfResolved(client: ResolvedClient): StepUpChoice {
    return stepUpChoiceOf(client, this.#stepUp);
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
