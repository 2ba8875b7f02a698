/**
 * Everything the master key protects: each family of rows that holds a
 * secret sealed under it. A master key rotation re-seals every one of them,
 * in one transaction, before the old keys are forgotten; a new kind of
 * sealed row belongs here, or it stops opening after the next rotation.
 * (The `requestState` keys are derived from the master keys, not stored:
 * nothing to re-seal.)
 */

import {
  pendingSignInFamily,
  upstreamClientSecretFamily,
  upstreamTokenFamily,
} from '../identity/oauth-client/sign-in-secrets.ts';
import { signingKeyFamily } from '../identity/oauth-server/signing-keys.ts';
import { credentialFamily } from '../vault/credential-vault.ts';
import type { SealedFamily } from '../vault/sealed-family.ts';

export const SEALED_UNDER_MASTER_KEY: readonly SealedFamily[] = [
  credentialFamily,
  signingKeyFamily,
  upstreamClientSecretFamily,
  upstreamTokenFamily,
  pendingSignInFamily,
];
