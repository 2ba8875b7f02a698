/**
 * Enterprise identity: the company's OpenID providers members sign in
 * through, and the identities (issuer and subject) a member is known by at
 * them. A member found through an IdP is found by its identity alone, never
 * by a name or an e-mail address the IdP sends.
 */
import type { MemberRole } from './oauth.ts';

/** Where an identity provider's client secret is read from: a variable whose name starts so. */
export const IDP_SECRET_PREFIX = 'PORTCULLIS_IDP_';

/** An OpenID provider the console and the consent page offer sign-in with (`portcullis idp add`). */
export interface IdentityProvider {
  id: string;
  /** Where the members it creates belong. */
  workspaceId: string;
  /** Its name in commands and URLs (`/sign-in/idp/<name>`); unique across workspaces. */
  name: string;
  /** The issuer exactly as its ID tokens say it; one provider per issuer. */
  issuer: string;
  clientId: string;
  /** The environment variable the client secret is read from, when the gateway signs a member in; the secret is never stored. */
  clientSecretEnv: string;
  /** Sign-in with this provider only: the password form is not offered. */
  only: boolean;
  /** The ID token claim a new member is named from (default `preferred_username`). */
  nameClaim: string;
  /** The scopes asked at sign-in (default `openid profile email`). */
  scopes: string;
  /** The claim listing the member's groups, when groups become roles and grants. */
  groupsClaim: string | null;
  /** The role of a member it creates. */
  role: MemberRole;
  createdAt: string;
  /** Trusted to issue ID-JAGs: its signed grants are redeemed at the token endpoint (`--id-jag`). */
  idJag: boolean;
}

/** Who a member is at an IdP: its ID tokens' `iss` and `sub`, the only key a sign-in finds them by. */
export interface MemberIdentity {
  issuer: string;
  subject: string;
  memberId: string;
  /** The provider's name when the identity was made (display only). */
  providerName: string;
  createdAt: string;
  lastSignInAt: string;
}

/** A group at a provider that gives its members a role or a grant (`portcullis idp map`). */
export interface GroupMapping {
  id: string;
  providerId: string;
  workspaceId: string;
  group: string;
  /** The console role it gives (the highest of a member's groups wins). */
  role: 'viewer' | 'operator' | null;
  /** The connection it grants (a member grant, reads or all). */
  connectionId: string | null;
  scope: 'reads' | 'all';
  createdAt: string;
}

/** What a member's groups gave them: taken away again at the sign-in where the group is gone. */
export interface GroupEffect {
  memberId: string;
  kind: 'role' | 'grant';
  /** The role, or the connection's id. */
  target: string;
  /** The member grant it made. */
  grantId: string | null;
  providerName: string;
  group: string;
  appliedAt: string;
}
