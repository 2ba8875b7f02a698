/**
 * Rotating the master key: write a new current key beside the old ones,
 * re-seal every credential (and the authorization server's signing keys) under it in one transaction, then forget the old
 * keys. A running gateway that meets a secret under a key it does not know
 * reloads the key file, so it follows a rotation made by the `portcullis`
 * command.
 */
import { GatewayError } from '../errors.ts';
import { resealSigningKeys } from '../oauth-server/signing-keys.ts';
import { forgetPreviousKeys, rotateKeyFile } from '../vault/key-file.ts';
import { attempt, audit, type OperatorContext } from './context.ts';

export async function rotateMasterKey(
  ctx: OperatorContext,
): Promise<{ keyId: string; resealed: number; signingKeys: number }> {
  return attempt(ctx, 'master_key.rotate', undefined, async () => {
    const { keys } = ctx;
    if (keys.fromEnvironment) {
      throw new GatewayError(
        'conflict',
        'the master key comes from PORTCULLIS_MASTER_KEY; unset it to use a key file, which can be rotated',
        { field: 'PORTCULLIS_MASTER_KEY' },
      );
    }
    const next = rotateKeyFile(keys.dataDir, ctx.vault.keyring);
    const { resealed, signingKeys } = await ctx.store.transaction(async (tx) => {
      const count = await ctx.vault.rotate(tx, next, ctx.now().toISOString());
      // The authorization server's signing keys are sealed under the same key.
      const keys = await resealSigningKeys(tx, next);
      await audit(ctx, tx, {
        action: 'master_key.rotate',
        workspaceId: null,
        subject: next.current.id,
      });
      return { resealed: count, signingKeys: keys };
    });
    // Only once every secret is under the new key may the old ones go.
    forgetPreviousKeys(keys.dataDir, next);
    return { keyId: next.current.id, resealed, signingKeys };
  });
}
