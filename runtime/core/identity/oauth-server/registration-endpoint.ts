/**
 * `POST /oauth/register` (RFC 7591): public clients, rate limited per
 * address (of the refusals, the 1st, 10th, 100th… of a window are audited,
 * with the count); each registration deletes the clients that expired
 * (client-expiry.ts).
 */
import { clientPruneCutoffs } from './client-expiry.ts';
import { clientFromRegistration, clientInformation } from './client-registration.ts';
import { auditOAuth, type OAuthContext, refusalEvent } from './oauth-context.ts';
import { OAuthError } from './oauth-error.ts';
import { jsonReply, type OAuthReply, oauthErrorReply } from './oauth-reply.ts';
import {
  countAttempt,
  isAuditedRefusal,
  REGISTRATION_PER_ADDRESS,
  refusalCount,
} from './rate-limits.ts';

export async function register(
  ctx: OAuthContext,
  body: unknown,
  address: string,
): Promise<OAuthReply> {
  const attempt = await countAttempt(ctx.state, [
    { limit: REGISTRATION_PER_ADDRESS, subject: address },
  ]);
  if (!attempt.within) {
    const error = new OAuthError(
      'temporarily_unavailable',
      'too many registrations from this address; try again later',
    );
    if (isAuditedRefusal(attempt.refused)) {
      await auditOAuth(ctx, {
        action: 'oauth.client.register',
        ...refusalEvent(error),
        ...refusalCount(attempt.refused),
      });
    }
    return oauthErrorReply(error);
  }
  try {
    const now = ctx.now();
    const client = clientFromRegistration(body, ctx.allowlist, now);
    await ctx.store.oauth.clients.create(client);
    await auditOAuth(ctx, { action: 'oauth.client.register', subject: client.id });
    // Each new client clears away the expired ones, so registering without end piles nothing up.
    const expired = await ctx.store.oauth.clients.prune(clientPruneCutoffs(now));
    if (expired > 0)
      await auditOAuth(ctx, { action: 'oauth.client.expire', subject: `${expired} expired` });
    return jsonReply(201, clientInformation(client));
  } catch (error) {
    if (!(error instanceof OAuthError)) throw error;
    await auditOAuth(ctx, { action: 'oauth.client.register', ...refusalEvent(error) });
    return oauthErrorReply(error);
  }
}
