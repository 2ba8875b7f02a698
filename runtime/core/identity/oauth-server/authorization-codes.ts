/**
 * Authorization codes in the shared state: random, single-use, 5 minutes,
 * kept under their sha256 with everything they are bound to (client,
 * redirect URI, PKCE challenge, resource, scopes, consent). Redeeming takes
 * the code in one atomic step and leaves a marker naming the refresh-token
 * family it started, so a second use finds the marker and revokes that family
 * (RFC 6749 §4.1.2, OAuth 2.1 §4.1.3).
 */
import { randomBytes } from 'node:crypto';
import { sha256Hex } from '../../../../generated/catalog-rules.ts';
import type { SharedState } from '../../ports/shared-state/shared-state.ts';

export const CODE_TTL_MS = 5 * 60_000;
/** How long a redeemed code is remembered, to catch its replay. */
const SPENT_TTL_MS = 60 * 60_000;

export interface CodeGrant {
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  resource: string;
  scopes: string[];
  consentId: string;
  agentId: string;
  workspaceId: string;
  memberId: string;
  /** Epoch milliseconds (checked against the server's clock as well as the TTL). */
  expiresAt: number;
}

const codeKey = (hash: string) => `oauth:code:${hash}`;
const spentKey = (hash: string) => `oauth:code-spent:${hash}`;
const voidKey = (familyId: string) => `oauth:family-void:${familyId}`;

export async function issueCode(state: SharedState, grant: CodeGrant): Promise<string> {
  const code = `pco_${randomBytes(32).toString('base64url')}`;
  await state.set(codeKey(sha256Hex(code)), JSON.stringify(grant), CODE_TTL_MS);
  return code;
}

export type Redemption =
  | { kind: 'redeemed'; grant: CodeGrant }
  /** Used before: the family its first use started, if it got that far. */
  | { kind: 'replayed'; familyId: string | undefined }
  | { kind: 'unknown' };

/** Takes the code (once); `familyId` is the family its tokens will belong to, remembered against a replay. */
export async function redeemCode(
  state: SharedState,
  code: string,
  familyId: string,
): Promise<Redemption> {
  const hash = sha256Hex(code);
  const taken = await state.take(codeKey(hash));
  if (taken !== undefined) {
    await state.set(spentKey(hash), familyId, SPENT_TTL_MS);
    return { kind: 'redeemed', grant: JSON.parse(taken) as CodeGrant };
  }
  const spent = await state.get(spentKey(hash));
  return spent === undefined ? { kind: 'unknown' } : { kind: 'replayed', familyId: spent };
}

/**
 * Marks the family a replayed code's first use starts as void, whether or
 * not that use has stored it yet: the replay may arrive between the code
 * being taken and the family being written.
 */
export async function voidFamily(state: SharedState, familyId: string): Promise<void> {
  await state.set(voidKey(familyId), '1', SPENT_TTL_MS);
}

/** Whether a replay voided the family (checked once it is stored). */
export async function isVoidFamily(state: SharedState, familyId: string): Promise<boolean> {
  return (await state.get(voidKey(familyId))) !== undefined;
}
