/** Rotating the access-token signing key: audited; tokens signed with the old key keep working. */
import type { SigningKeys } from '../oauth-server/signing-keys.ts';
import { attempt, audit, type OperatorContext } from './context.ts';

export async function rotateSigningKey(
  ctx: OperatorContext,
  keys: SigningKeys,
): Promise<{ kid: string }> {
  return attempt(ctx, 'oauth.key.rotate', undefined, async () => {
    const kid = await keys.rotate();
    await audit(ctx, ctx.store, { action: 'oauth.key.rotate', workspaceId: null, subject: kid });
    return { kid };
  });
}
