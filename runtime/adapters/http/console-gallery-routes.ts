/**
 * The console's **Apps → Connect an app** routes, beside `console-routes.ts`,
 * which registers them with its `route`: the member's session and role are
 * checked there (any console role lists the gallery; owners and operators
 * connect), the workspace is always theirs, and the work is the operator
 * verbs `portcullis connect` and `connect-url` call (`gallery.ts`).
 */
import type { RequestHandler, Router } from 'express';
import type { OperatorContext } from '../../core/operator/context.ts';
import { connectApp, listGallery } from '../../core/operator/gallery.ts';

type Verb = (ctx: OperatorContext, input: Record<string, unknown>) => Promise<unknown>;
/** `console-routes.ts`'s: a verb on the member's own workspace, `changes` for owners and operators only. */
export type ConsoleRoute = (verb: Verb, changes?: boolean) => RequestHandler;

export function galleryRoutes(api: Router, route: ConsoleRoute): void {
  api.get('/gallery', route(listGallery));
  api.post('/gallery/:app/connect', route(connectApp, true));
}
