/**
 * What an app keeps for the MCP SDK v2 client's OAuth: everything in
 * memory, registered dynamically as a public client of `redirect` (or of
 * what it gives when asked, for a callback that listens once the test starts), the
 * authorize URL noted (`authorizationUrl`) instead of opened, so a test
 * takes it to the consent page itself.
 */
import type {
  OAuthClientMetadata,
  OAuthClientProvider,
  StoredOAuthClientInformation,
  StoredOAuthTokens,
} from '@modelcontextprotocol/client';

export class MemoryProvider implements OAuthClientProvider {
  client: StoredOAuthClientInformation | undefined;
  stored: StoredOAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;
  readonly #redirect: string | (() => string);
  readonly #clientName: string;

  constructor(redirect: string | (() => string), clientName: string) {
    this.#redirect = redirect;
    this.#clientName = clientName;
  }

  get redirectUrl() {
    return typeof this.#redirect === 'string' ? this.#redirect : this.#redirect();
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.#clientName,
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: StoredOAuthClientInformation) {
    this.client = info;
  }
  tokens() {
    return this.stored;
  }
  saveTokens(tokens: StoredOAuthTokens) {
    this.stored = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}
