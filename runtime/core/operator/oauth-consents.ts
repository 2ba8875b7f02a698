/**
 * Consents as operators see them: who (member) let which client act as
 * which agent, with which scopes; revoking one stops its refresh tokens at
 * once and its access tokens on their next request, on every replica.
 */
import { z } from 'zod';
import { GatewayError } from '../base/errors.ts';
import type { StepUpChoice } from '../identity/oauth-server/step-up-form.ts';
import type { Consent } from '../model/oauth.ts';
import { attempt, audit, type OperatorContext, parseInput, workspaceOrThrow } from './context.ts';
import { stepUpsOf } from './oauth-clients.ts';

export interface ConsentView extends Consent {
  member: string;
  agent: string;
  /** How its client steps up, and why (`oauth-clients.ts`). */
  stepUp: StepUpChoice;
}

export async function listConsents(ctx: OperatorContext, input: unknown): Promise<ConsentView[]> {
  const { workspace: ref } = parseInput(z.strictObject({ workspace: z.string().min(1) }), input);
  const workspace = await workspaceOrThrow(ctx, ref);
  const [consents, members, agents] = await Promise.all([
    ctx.store.oauth.consents.list(workspace.id),
    ctx.store.oauth.members.list(workspace.id),
    ctx.store.agents.list(workspace.id),
  ]);
  const memberNames = new Map(members.map((m) => [m.id, m.name]));
  const agentNames = new Map(agents.map((a) => [a.id, a.name]));
  const stepUps = await stepUpsOf(ctx, [...new Set(consents.map((c) => c.clientId))]);
  return consents.map((consent) => ({
    ...consent,
    member: memberNames.get(consent.memberId) ?? consent.memberId,
    agent: agentNames.get(consent.agentId) ?? consent.agentId,
    stepUp: stepUps.get(consent.clientId) ?? { form: ctx.oauthStepUp ?? 'http', why: 'default' },
  }));
}

export async function revokeConsent(ctx: OperatorContext, input: unknown): Promise<Consent> {
  return attempt(ctx, 'oauth.consent.revoke', input, async () => {
    const { workspace: ref, id } = parseInput(
      z.strictObject({ workspace: z.string().min(1), id: z.string().min(1) }),
      input,
    );
    const workspace = await workspaceOrThrow(ctx, ref);
    const consent = await ctx.store.oauth.consents.byId(id);
    if (!consent || consent.workspaceId !== workspace.id) {
      throw new GatewayError(
        'not_found',
        `no consent ${id} in this workspace (portcullis oauth consents lists them)`,
        {
          field: 'id',
        },
      );
    }
    const at = ctx.now().toISOString();
    await ctx.store.transaction(async (tx) => {
      await tx.oauth.consents.revoke(consent.id, at);
      await audit(ctx, tx, {
        action: 'oauth.consent.revoke',
        workspaceId: workspace.id,
        subject: consent.id,
      });
    });
    return { ...consent, status: 'revoked', revokedAt: consent.revokedAt ?? at };
  });
}
