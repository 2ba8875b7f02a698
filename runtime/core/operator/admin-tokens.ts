/**
 * Admin tokens: the operator's keys to the admin HTTP API. The first start
 * makes one; these verbs make more, list them and revoke them, each audited.
 * A token is shown once, when made, and stored as its sha256 only; revoking
 * the last one is allowed (the `portcullis` command needs none, and the next
 * start of a gateway with none makes one and prints it).
 */
import { z } from 'zod';
import { GatewayError } from '../base/errors.ts';
import { hashKey, newAdminToken, newId } from '../governance/keys.ts';
import { attempt, audit, type OperatorContext, parseInput } from './context.ts';

export interface AdminTokenView {
  id: string;
  createdAt: string;
}

/** Makes a token; it is in the result once and never again. */
export async function createAdminToken(
  ctx: OperatorContext,
): Promise<AdminTokenView & { token: string }> {
  return attempt(ctx, 'admin_token.create', undefined, async () => {
    const token = newAdminToken();
    const created = { id: newId(), createdAt: ctx.now().toISOString() };
    await ctx.store.transaction(async (tx) => {
      await tx.adminTokens.create(created.id, hashKey(token), created.createdAt);
      await audit(ctx, tx, {
        action: 'admin_token.create',
        workspaceId: null,
        subject: created.id,
      });
    });
    return { ...created, token };
  });
}

export function listAdminTokens(ctx: OperatorContext): Promise<AdminTokenView[]> {
  return ctx.store.adminTokens.list();
}

const AdminTokenRefSchema = z.strictObject({
  /** The token's id, or the start of it (as long as it names one token). */
  id: z.string().min(1),
});

/** Revokes a token by id (or a prefix naming one): its next request is refused. */
export async function revokeAdminToken(
  ctx: OperatorContext,
  input: unknown,
): Promise<AdminTokenView> {
  return attempt(ctx, 'admin_token.revoke', input, async () => {
    const { id } = parseInput(AdminTokenRefSchema, input);
    const matches = (await ctx.store.adminTokens.list()).filter((t) => t.id.startsWith(id));
    if (matches.length !== 1) {
      throw new GatewayError(
        matches.length === 0 ? 'not_found' : 'conflict',
        matches.length === 0
          ? `no admin token ${id} (portcullis admin-token list shows them)`
          : `${id} starts ${matches.length} admin tokens' ids; give more of it`,
        { field: 'id' },
      );
    }
    const token = matches[0]!;
    await ctx.store.transaction(async (tx) => {
      await tx.adminTokens.remove(token.id);
      await audit(ctx, tx, { action: 'admin_token.revoke', workspaceId: null, subject: token.id });
    });
    return token;
  });
}
