/**
 * The enterprise IdP's half of Enterprise-Managed Authorization towards an
 * upstream (`connection auth --id-jag <idp>`; the design is in
 * `oauth-client/enterprise-authorization.ts`): the member's ID token from
 * their sign-in at the provider, traded at the provider's token endpoint by
 * RFC 8693 token exchange for an ID-JAG whose `aud` is the upstream's
 * authorization server and whose `resource` is the upstream. The gateway
 * authenticates as its own client at the provider (the one its sign-in
 * uses, `client_secret_basic`), through the guarded client. The ID token and
 * the secret are kept out of every error; a refusal keeps its RFC code only.
 */
import * as oauth from 'oauth4webapi';
import { GatewayError } from '../../base/errors.ts';
import {
  ID_JAG_TOKEN_TYPE,
  type IdJagRequest,
  SUBJECT_TOKEN_TYPES,
  TOKEN_EXCHANGE_GRANT,
} from '../../model/delegation.ts';
import { Redactor } from '../../outbound/redaction.ts';
import { basicCredential } from '../oauth-client/library-shapes.ts';
import { oauthFailure } from '../oauth-client/oauth-errors.ts';
import type { OAuthContext } from './oauth-context.ts';

/** The ID-JAG the provider issued for the member's ID token. */
export async function requestIdJag(ctx: OAuthContext, request: IdJagRequest): Promise<string> {
  const provider = await ctx.store.identity.providerByName(request.provider);
  if (!provider)
    throw new GatewayError(
      'not_found',
      `idJag: no identity provider is named ${request.provider}: portcullis idp list`,
      { field: 'idJag' },
    );
  if (provider.issuer !== request.issuer)
    throw new GatewayError(
      'idp_session_required',
      `the member's last sign-in was not at ${provider.name}, the provider the connection trades ID tokens at: the member must sign in through ${provider.name}`,
      { detail: { provider: provider.name } },
    );
  const peer = await ctx.idps.peer(provider);
  const secret = ctx.idps.secretOf(provider);
  const parameters = new URLSearchParams({
    subject_token: request.idToken,
    subject_token_type: SUBJECT_TOKEN_TYPES.id_token,
    requested_token_type: ID_JAG_TOKEN_TYPE,
    audience: request.audience,
    resource: request.resource,
  });
  if (request.scopes.length > 0) parameters.set('scope', request.scopes.join(' '));
  const credential = basicCredential(provider.clientId, secret);
  const redactor = new Redactor([request.idToken, secret, credential]);
  const client: oauth.Client = { client_id: provider.clientId };
  try {
    const response = await oauth.genericTokenEndpointRequest(
      peer.metadata,
      client,
      (_server, _client, _body, headers) => {
        headers.set('authorization', `Basic ${credential}`);
      },
      TOKEN_EXCHANGE_GRANT,
      parameters,
      { ...peer.options, [oauth.customFetch]: ctx.idps.fetchKeeping(redactor) },
    );
    // RFC 8693 §2.2.1: an ID-JAG is no access token, its `token_type` is `N_A`.
    const result = await oauth.processGenericTokenEndpointResponse(
      peer.metadata,
      client,
      response,
      {
        recognizedTokenTypes: { n_a: () => {} },
      },
    );
    if (result.issued_token_type !== ID_JAG_TOKEN_TYPE || typeof result.access_token !== 'string')
      throw new GatewayError(
        'idp_id_jag_failed',
        `${provider.name} exchanged the member's ID token for another kind of token than an ID-JAG`,
        { field: 'idJag', detail: { provider: provider.name } },
      );
    return result.access_token;
  } catch (error) {
    throw await oauthFailure(error, 'id-jag request', false);
  }
}
