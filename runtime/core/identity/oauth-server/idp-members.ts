/**
 * The member an IdP sign-in is: found by the ID token's `iss` and `sub`
 * alone, never by a name or an e-mail address the IdP sends (a person who
 * calls themselves `ada` at one IdP is not the member `ada`; two IdPs that
 * both say `sub: 1` name two people). On the first sign-in a member is made,
 * in the provider's workspace with the provider's role, named from the
 * provider's name claim (made into a member name; a taken one gets a
 * suffix from the identity), and with no password. Later sign-ins find the
 * same member however the IdP renames them.
 */
import { sha256Hex } from '../../../../generated/catalog-rules.ts';
import { GatewayError } from '../../base/errors.ts';
import { auditEvent } from '../../governance/audit-event.ts';
import { newId } from '../../governance/keys.ts';
import type { IdentityProvider } from '../../model/identity.ts';
import type { Member } from '../../model/oauth.ts';
import type { OAuthContext } from './oauth-context.ts';

/** A member made by an IdP has no password: this hash is no scrypt hash, so no password matches it. */
export const NO_PASSWORD = 'idp';
const NAME_STEM = 24;

export interface IdTokenIdentity {
  iss: string;
  sub: string;
  claims: Readonly<Record<string, unknown>>;
}

export async function memberOfIdentity(
  ctx: Pick<OAuthContext, 'store' | 'now'>,
  provider: IdentityProvider,
  identity: IdTokenIdentity,
): Promise<{ member: Member; created: boolean }> {
  const at = ctx.now().toISOString();
  const known = await ctx.store.identity.identity(identity.iss, identity.sub);
  if (known) {
    const member = await ctx.store.oauth.members.byId(known.memberId);
    if (member) {
      await ctx.store.identity.signedIn(identity.iss, identity.sub, at);
      return { member, created: false };
    }
  }
  const stem = memberNameStem(identity.claims[provider.nameClaim]);
  const suffix = sha256Hex(`${identity.iss}\n${identity.sub}`).slice(0, 6);
  for (const name of [stem, `${stem}-${suffix}`]) {
    const member: Member = {
      id: newId(),
      workspaceId: provider.workspaceId,
      name,
      role: provider.role,
      createdAt: at,
      updatedAt: at,
    };
    try {
      await ctx.store.transaction(async (tx) => {
        await tx.oauth.members.create(member, NO_PASSWORD);
        await tx.identity.addIdentity({
          issuer: identity.iss,
          subject: identity.sub,
          memberId: member.id,
          providerName: provider.name,
          createdAt: at,
          lastSignInAt: at,
        });
        await tx.audit.append(
          auditEvent({
            at,
            workspaceId: provider.workspaceId,
            actorKind: 'system',
            actorId: 'oauth',
            action: 'member.add',
            subject: `${member.id}:idp:${provider.name}`,
            decision: 'allowed',
            outcome: 'ok',
          }),
        );
      });
      return { member, created: true };
    } catch (error) {
      if (!(error instanceof GatewayError) || error.code !== 'conflict') throw error;
      // Two sign-ins of one person at once: the other made the member.
      const made = await ctx.store.identity.identity(identity.iss, identity.sub);
      const member = made && (await ctx.store.oauth.members.byId(made.memberId));
      if (member) return { member, created: false };
    }
  }
  throw new GatewayError('conflict', 'no member name is free for this identity', {
    field: 'name',
  });
}

/**
 * A member name (`[a-z][a-z0-9-]{0,31}`) from what the IdP calls the person:
 * lower case, accents dropped, every other run of characters a dash, at most
 * 24 characters (so a suffix fits), `member` when nothing is left.
 */
export function memberNameStem(claim: unknown): string {
  const text = typeof claim === 'string' ? claim : '';
  const plain = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^[^a-z]+/, '')
    .slice(0, NAME_STEM)
    .replace(/-+$/, '');
  return plain === '' ? 'member' : plain;
}
