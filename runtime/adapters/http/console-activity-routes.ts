/**
 * The console's activity routes, beside `console-routes.ts` (which registers
 * them with one line): the audit log's live tail (`GET audit/tail`, read on
 * from a cursor, polled by the page) and the charts' figures
 * (`GET activity`). Both are reads, for every console role, on the member's
 * own workspace, through the operator verbs.
 */
import type { RequestHandler, Router } from 'express';
import { auditActivity } from '../../core/operator/audit-activity.ts';
import { tailAudit } from '../../core/operator/audit-tail.ts';
import type { OperatorContext } from '../../core/operator/context.ts';

type ReadRoute = (
  verb: (ctx: OperatorContext, input: Record<string, unknown>) => Promise<unknown>,
) => RequestHandler;

export function consoleActivityRoutes(api: Router, route: ReadRoute): void {
  api.get('/audit/tail', route(tailAudit));
  api.get('/activity', route(auditActivity));
}
