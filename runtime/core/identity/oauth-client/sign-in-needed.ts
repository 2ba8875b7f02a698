/**
 * What a call to a signed-in connection fails with when it has no working
 * token: `oauth_sign_in_required` with the reason, and who can fix it. For
 * the connection's shared credential that is an operator (the command to
 * run); for an agent's personal credential it is the agent's person, so the
 * error carries a sign-in link for them (`detail.signInUrl`), with the
 * host they will be sent to: the same link again while it is unopened, so an
 * agent calling in a loop does not pile up sign-ins. Never a token, never a secret.
 */
import { GatewayError } from '../../base/errors.ts';
import type { SignInReason } from '../../model/sign-in.ts';
import type { Store } from '../../ports/store.ts';
import type { UpstreamSignIn } from './upstream-sign-in.ts';
import type { TokenOwner } from './upstream-tokens.ts';

const WHY: Record<SignInReason | 'never', string> = {
  never: 'no one has signed in yet',
  invalid_grant: 'the server refused the refresh token (invalid_grant)',
  invalid_client: 'the server no longer knows the client (invalid_client)',
  token_refused:
    'the server refused freshly refreshed tokens (has it moved to another authorization server?)',
  signed_out: 'it was signed out',
  scope_insufficient: 'the server needs a wider scope',
};

export async function signInNeeded(
  signIn: UpstreamSignIn,
  store: Store,
  owner: TokenOwner,
  reason: SignInReason | 'never',
): Promise<GatewayError> {
  const code =
    reason === 'scope_insufficient' ? 'oauth_scope_insufficient' : 'oauth_sign_in_required';
  if (owner.agentId === null)
    return new GatewayError(
      code,
      `${owner.connectionName}: ${WHY[reason]}; an operator signs in again: portcullis connection sign-in ${owner.connectionName}`,
      { detail: { connection: owner.connectionName, reason } },
    );
  const endpoint = await store.remoteEndpoints.byConnection(owner.connectionId);
  if (!endpoint?.oauth)
    return new GatewayError(code, `${owner.connectionName}: ${WHY[reason]}`, {
      detail: { connection: owner.connectionName, reason },
    });
  try {
    const link = await signIn.start({
      workspaceId: owner.workspaceId,
      connection: { id: owner.connectionId, name: owner.connectionName },
      endpoint,
      agentId: owner.agentId,
      actor: `agent:${owner.agentId}`,
      // Only an operator's explicit sign-in registers a client.
      mayRegister: false,
      // A call made again before its person opened the link answers the same link.
      reuseUnopened: true,
    });
    return new GatewayError(
      code,
      `${owner.connectionName}: this agent's own sign-in is needed (${WHY[reason]}); its person opens ${link.link} (it sends them to ${link.host}, an unverified server)`,
      {
        detail: {
          connection: owner.connectionName,
          reason,
          signInUrl: link.link,
          host: link.host,
        },
      },
    );
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
}
