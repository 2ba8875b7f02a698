/**
 * An OAuth client as operators see it, and its step-up form: how a tool call
 * its token lacks the scope for is answered (`http`: HTTP 403 with
 * `WWW-Authenticate`; `result`: an `isError` result carrying the challenge in
 * `_meta["mcp/www_authenticate"]`, what ChatGPT reads), as an operator chose
 * or by default (`step-up-form.ts`). A workspace sees and sets only the
 * clients its members connected (a consent of its own), since a registered
 * client serves every workspace; the change is a governance change, taken by
 * every replica at the client's next request.
 */
import { z } from 'zod';
import { GatewayError } from '../base/errors.ts';
import { looksLikeMetadataUrl } from '../identity/oauth-server/client-metadata-documents.ts';
import { type StepUpChoice, stepUpChoiceOf } from '../identity/oauth-server/step-up-form.ts';
import { STEP_UP_FORMS } from '../model/oauth.ts';
import { attempt, audit, type OperatorContext, parseInput, workspaceOrThrow } from './context.ts';

export interface ClientView extends StepUpChoice {
  id: string;
  name: string;
  /** Empty for a metadata-document client (its document names them). */
  redirectUris: string[];
  kind: 'registered' | 'metadata_document';
}

const ClientRefSchema = z.strictObject({ workspace: z.string().min(1), id: z.string().min(1) });
const StepUpSchema = ClientRefSchema.extend({
  /** `default`: forget the choice (by redirect URIs, else PORTCULLIS_OAUTH_STEP_UP). */
  stepUp: z.enum([...STEP_UP_FORMS, 'default']),
});

export async function showClient(ctx: OperatorContext, input: unknown): Promise<ClientView> {
  const { workspace, id } = parseInput(ClientRefSchema, input);
  return clientOrThrow(ctx, workspace, id);
}

export async function setClientStepUp(ctx: OperatorContext, input: unknown): Promise<ClientView> {
  return attempt(ctx, 'oauth.client.step_up', input, async () => {
    const { workspace: ref, id, stepUp } = parseInput(StepUpSchema, input);
    const client = await clientOrThrow(ctx, ref, id);
    if (client.kind === 'metadata_document')
      throw new GatewayError(
        'conflict',
        `${id} is a metadata document's URL, not a registration: it has no step-up form to choose and takes the deployment's (PORTCULLIS_OAUTH_STEP_UP)`,
        { field: 'id' },
      );
    const workspace = await workspaceOrThrow(ctx, ref);
    await ctx.store.transaction(async (tx) => {
      await tx.oauth.clients.setStepUp(id, stepUp === 'default' ? undefined : stepUp);
      await audit(ctx, tx, {
        action: 'oauth.client.step_up',
        workspaceId: workspace.id,
        subject: `${id}:${stepUp}`,
      });
    });
    return clientOrThrow(ctx, ref, id);
  });
}

/** The step-up form of each registered client of these ids (a metadata document's: the default's, left out). */
export async function stepUpsOf(
  ctx: OperatorContext,
  ids: readonly string[],
): Promise<Map<string, StepUpChoice>> {
  const fallback = ctx.oauthStepUp ?? 'http';
  const found = await Promise.all(
    ids.filter((id) => !looksLikeMetadataUrl(id)).map((id) => ctx.store.oauth.clients.byId(id)),
  );
  return new Map(
    found.flatMap((client) =>
      client === undefined ? [] : [[client.id, stepUpChoiceOf(client, fallback)] as const],
    ),
  );
}

/** The client, while a member of the workspace connected it (a consent of the workspace's). */
async function clientOrThrow(ctx: OperatorContext, ref: string, id: string): Promise<ClientView> {
  const workspace = await workspaceOrThrow(ctx, ref);
  const consents = await ctx.store.oauth.consents.list(workspace.id);
  const consent = consents.find((c) => c.clientId === id);
  const fallback = ctx.oauthStepUp ?? 'http';
  const registered =
    consent === undefined || looksLikeMetadataUrl(id)
      ? undefined
      : await ctx.store.oauth.clients.byId(id);
  if (consent !== undefined && looksLikeMetadataUrl(id))
    return {
      id,
      name: consent.clientName,
      redirectUris: [],
      kind: 'metadata_document',
      form: fallback,
      why: 'default',
    };
  if (registered === undefined)
    throw new GatewayError(
      'not_found',
      `no OAuth client ${id} connected in this workspace (portcullis oauth consents lists them)`,
      { field: 'id' },
    );
  return {
    id,
    name: registered.name,
    redirectUris: registered.redirectUris,
    kind: 'registered',
    ...stepUpChoiceOf(registered, fallback),
  };
}
