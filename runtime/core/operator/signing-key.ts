/**
 * Rotating the access-token signing key, audited: tokens signed with the old
 * key keep working, or with `revokeOld` (a leaked key) are refused at once
 * everywhere, each revoked key audited by its kid.
 */
import type { SigningKeys } from '../identity/oauth-server/signing-keys.ts';
import { attempt, audit, type OperatorContext } from './context.ts';

export async function rotateSigningKey(
  ctx: OperatorContext,
  keys: SigningKeys,
  options: { revokeOld?: boolean } = {},
): Promise<{ kid: string; revoked?: string[] }> {
  return attempt(ctx, 'oauth.key.rotate', undefined, async () => {
    const { kid, revoked } = await keys.rotate(options);
    await audit(ctx, ctx.store, { action: 'oauth.key.rotate', workspaceId: null, subject: kid });
    for (const old of revoked) {
      await audit(ctx, ctx.store, { action: 'oauth.key.revoke', workspaceId: null, subject: old });
    }
    return options.revokeOld ? { kid, revoked } : { kid };
  });
}
