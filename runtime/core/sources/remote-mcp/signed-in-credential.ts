/**
 * What a request to a remote connection carries as its credential, the one
 * way the executor's calls and the background probe both present it: the
 * stored key or headers as they are, or, for a signed-in (`oauth`)
 * connection, its access token as Bearer — refreshed ahead of expiry and
 * once after an upstream 401, through `UpstreamTokens`' single-flight
 * refresh (there is no other refresh path), and put in `sign_in_required`
 * when the fresh token is refused too. A connection that takes a key or
 * headers and has none for the call is refused before anything is sent.
 */

import { GatewayError } from '../../base/errors.ts';
import type { TokenOwner, UpstreamTokens } from '../../identity/oauth-client/upstream-tokens.ts';
import type { ActingFor } from '../../model/delegation.ts';
import type { Connection } from '../../model/governance.ts';
import type { RemoteEndpoint } from '../../model/remote.ts';
import { BEARER_FIELD } from './remote-headers.ts';

export interface CredentialHolder {
  connection: Pick<Connection, 'id' | 'workspaceId' | 'name'>;
  endpoint: RemoteEndpoint;
  /** The stored key or headers (a connection that is not signed in). */
  credential: Record<string, string> | undefined;
  /** Whose credential: an agent's own (its id), or the connection's shared one (null). */
  agentId: string | null;
  /** The member an agent's call acts for, when it does (their consent made the agent). */
  actingFor?: ActingFor | undefined;
}

/** The owner part of the session key of a member's calls with their exchanged token. */
export const MEMBER_OWNER = 'member:';

/** Whether a call of `holder` carries a token exchanged for its member's (the connection acts on their behalf). */
export function actsOnBehalf(holder: Pick<CredentialHolder, 'endpoint' | 'actingFor'>): boolean {
  return (
    holder.endpoint.authKind === 'oauth' &&
    holder.actingFor !== undefined &&
    holder.endpoint.oauth?.delegation?.onBehalf !== undefined
  );
}

/**
 * The refusal (`credential_missing`) of a call on a connection that takes a
 * key or headers it does not carry; undefined when it carries what it must.
 */
export function missingCredential(holder: CredentialHolder): GatewayError | undefined {
  const { connection, endpoint } = holder;
  if (endpoint.authKind !== 'bearer' && endpoint.authKind !== 'headers') return undefined;
  if (!isEmpty(holder.credential)) return undefined;
  return new GatewayError(
    'credential_missing',
    holder.agentId
      ? `connection ${connection.name} has no credential of this agent's own (its grant is personal): portcullis credential set ${connection.name} --agent <agent>`
      : `connection ${connection.name} has no credential`,
    // The code in a prompt's or resource's JSON-RPC error data too: the agent's client reads it there.
    {
      detail: {
        code: 'credential_missing',
        credential: holder.agentId ? 'personal' : 'shared',
      },
    },
  );
}

/** Runs `send` with the holder's credential; without `tokens` an `oauth` connection's requests go out bare. */
export async function withCredential<T>(
  tokens: UpstreamTokens | undefined,
  holder: CredentialHolder,
  send: (credential: Record<string, string> | undefined) => Promise<T>,
): Promise<T> {
  const { connection, endpoint } = holder;
  if (endpoint.authKind !== 'oauth' || !tokens) return send(holder.credential);
  const owner: TokenOwner = {
    workspaceId: connection.workspaceId,
    connectionId: connection.id,
    connectionName: connection.name,
    agentId: holder.agentId,
  };
  const acting = holder.actingFor;
  const setting = endpoint.oauth?.delegation?.onBehalf;
  if (acting && setting) {
    // Never our own token: the member's, exchanged at the upstream's authorization server.
    const exchanged = await tokens.onBehalf(endpoint, owner, acting, setting);
    try {
      return await send({ [BEARER_FIELD]: exchanged });
    } catch (error) {
      if (!isUnauthorized(error)) throw error;
      return send({
        [BEARER_FIELD]: await tokens.onBehalfAfterRefusal(
          endpoint,
          owner,
          acting,
          setting,
          exchanged,
        ),
      });
    }
  }
  const used = await tokens.accessToken(endpoint, owner);
  try {
    return await send({ [BEARER_FIELD]: used });
  } catch (error) {
    const fresh = await tokens.afterRefusal(endpoint, owner, error, used);
    if (fresh === undefined) throw error;
    return send({ [BEARER_FIELD]: fresh }).catch((again: unknown) =>
      tokens.afterSecondRefusal(owner, again),
    );
  }
}

function isUnauthorized(error: unknown): boolean {
  return (
    error instanceof GatewayError &&
    error.code === 'mcp_remote_status' &&
    error.detail?.status === 401
  );
}

function isEmpty(credential: Record<string, string> | undefined): boolean {
  return credential === undefined || Object.values(credential).every((value) => value === '');
}
