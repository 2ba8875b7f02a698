/**
 * The console's **Connect your own MCP server** routes (seed 000), beside
 * `console-routes.ts`, which registers them with its `route`: the member's
 * session and role are checked there, the workspace is always theirs, and
 * the work is the operator verbs `portcullis connect <url>`, `import` and
 * `connection sign-in` call. Every answer is a step (`ConnectStep`): what
 * comes next, the host and its label, header names and never a value.
 */
import type { RequestHandler, Router } from 'express';
import type { OperatorContext } from '../../core/operator/context.ts';
import { configHelpPrompt, readConfig } from '../../core/operator/remote-config-read.ts';
import { connectStep, connectStepOf } from '../../core/operator/remote-connect-view.ts';
import { connectUrl } from '../../core/operator/remote-connections.ts';
import { importConfig } from '../../core/operator/remote-import.ts';
import { signIn } from '../../core/operator/remote-sign-in.ts';

type Verb = (ctx: OperatorContext, input: Record<string, unknown>) => Promise<unknown>;
/** `console-routes.ts`'s: a verb on the member's own workspace, `changes` for owners and operators only. */
export type ConsoleRoute = (verb: Verb, changes?: boolean) => RequestHandler;

export function connectOwnRoutes(api: Router, route: ConsoleRoute): void {
  // Check link, and continuing a draft with a key or headers (connecting again by its name).
  api.post(
    '/connect/own',
    route(async (ctx, input) => connectStepOf(ctx, await connectUrl(ctx, input)), true),
  );
  api.get('/connect/own/:connection', route(connectStep));
  // Sign in to continue: the link to the gateway's page that names the host, then the provider.
  api.post(
    '/connect/own/:connection/sign-in',
    route(async (ctx, input) => {
      const { link, host, expiresAt, connection, label } = await signIn(ctx, input);
      return { link, host, expiresAt, connection, label };
    }, true),
  );
  // Advanced → Paste a config: the help's request for an agent, reading the paste, importing it.
  api.get(
    '/connect/config/help',
    route(async () => configHelpPrompt()),
  );
  api.post('/connect/config/read', route(readConfig, true));
  api.post(
    '/connect/config/import',
    route(async (ctx, input) => connectStepOf(ctx, await importConfig(ctx, input)), true),
  );
}
