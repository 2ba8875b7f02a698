/**
 * How a remote OAuth connection authenticates at its authorization server
 * (`portcullis connection auth`): a person's sign-in or the workspace's own
 * client for the shared credential, and whether members' calls carry a
 * token exchanged for their own (RFC 8693) or redeemed for an ID-JAG of
 * their identity provider. The issuer and the audience
 * are the remote side's and the operator's text: shown inert.
 */

import { shown } from '../shown.ts';
import type { RemoteView } from '../types.ts';

export function UpstreamAuth({ signIn }: { signIn: NonNullable<RemoteView['signIn']> }) {
  const behalf = signIn.onBehalfOf;
  return (
    <dl class="facts upstream-auth" aria-label="How this connection authenticates">
      <dt>Authorization server</dt>
      <dd>
        <code>{shown(signIn.issuer ?? '')}</code>
      </dd>
      <dt>Shared credential</dt>
      <dd>
        {signIn.clientCredentials
          ? `the workspace's own client (client credentials, ${shown(signIn.clientCredentials)})`
          : signIn.state === 'signed_in'
            ? "a person's sign-in"
            : 'not signed in'}
      </dd>
      <dt>Members' calls</dt>
      <dd>
        {behalf?.idJag ? (
          <>
            on the member's behalf: a token redeemed for an ID-JAG that{' '}
            <code>{shown(behalf.idJag)}</code> issues for their ID token
          </>
        ) : behalf ? (
          <>
            on the member's behalf: a token exchanged for{' '}
            {behalf.subjectToken === 'portcullis'
              ? 'one Portcullis signs for the member'
              : `their ${behalf.subjectToken === 'id_token' ? 'ID token' : 'access token'} at the company's identity provider`}
            {behalf.audience ? (
              <>
                {' '}
                (audience <code>{shown(behalf.audience)}</code>)
              </>
            ) : null}
          </>
        ) : (
          "the connection's shared credential"
        )}
      </dd>
    </dl>
  );
}
