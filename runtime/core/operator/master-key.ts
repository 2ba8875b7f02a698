/**
 * Rotating the master key: write a new current key beside the old ones,
 * re-seal everything the master key protects (`SEALED_UNDER_MASTER_KEY`)
 * under it in one transaction, then forget the old keys. A running gateway
 * that meets a secret under a key it does not know reloads the key file, and
 * seals only under the key the store names, so it follows a rotation made by
 * the `portcullis` command.
 */
import { GatewayError } from '../base/errors.ts';
import { forgetPreviousKeys, rotateKeyFile } from '../vault/key-file.ts';
import { attempt, audit, type OperatorContext } from './context.ts';
import { SEALED_UNDER_MASTER_KEY } from './sealed-under-master-key.ts';

export interface MasterKeyRotated {
  keyId: string;
  /** Secrets re-sealed, in all. */
  resealed: number;
  /** Secrets re-sealed, by what they are (`credentials`, `signingKeys`, `upstreamTokens`, …). */
  families: Record<string, number>;
}

export async function rotateMasterKey(ctx: OperatorContext): Promise<MasterKeyRotated> {
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
    const at = ctx.now().toISOString();
    const families = await ctx.store.transaction(async (tx) => {
      // First: from here on, whoever seals waits for this transaction, then seals under `next`.
      await ctx.vault.recordRotation(tx, next);
      const counts: Record<string, number> = {};
      for (const family of SEALED_UNDER_MASTER_KEY)
        counts[family.name] = await family.reseal(tx, next, at);
      await audit(ctx, tx, {
        action: 'master_key.rotate',
        workspaceId: null,
        subject: next.current.id,
      });
      return counts;
    });
    // Only once every secret is under the new key may the old ones go.
    forgetPreviousKeys(keys.dataDir, next);
    const resealed = Object.values(families).reduce((sum, count) => sum + count, 0);
    return { keyId: next.current.id, resealed, families };
  });
}
