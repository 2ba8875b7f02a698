/**
 * The console's routes for who may act in a workspace: its members (listed
 * to every console role, added, given another role or removed by owners
 * alone) and the OAuth clients its members approved (each consent listed
 * with its member, client, scopes, dates and step-up form; revoked by owners
 * and operators, the client's step-up form chosen by owners). Each is the operator verb the CLI and the admin API call.
 */
import type express from 'express';
import type { NextFunction, Request, Response } from 'express';
import type { OperatorContext } from '../../core/operator/context.ts';
import {
  addMember,
  listMembers,
  removeMember,
  setMemberRole,
} from '../../core/operator/members.ts';
import { setClientStepUp } from '../../core/operator/oauth-clients.ts';
import { listConsents, revokeConsent } from '../../core/operator/oauth-consents.ts';

export type Verb = (ctx: OperatorContext, input: Record<string, unknown>) => Promise<unknown>;
/** Who may call a console route: any console role reads; owners and operators change; `owner`: owners alone. */
export type Changes = boolean | 'owner';
export type ConsoleRoute = (
  verb: Verb,
  changes?: Changes,
) => (req: Request, res: Response, next: NextFunction) => Promise<void>;

export function accessRoutes(api: express.Router, route: ConsoleRoute): void {
  api.get('/members', route(listMembers));
  api.post('/members', route(addMember, 'owner'));
  api.post('/members/:name/role', route(setMemberRole, 'owner'));
  api.post('/members/:name/remove', route(removeMember, 'owner'));
  api.get('/consents', route(listConsents));
  api.post('/consents/:id/revoke', route(revokeConsent, true));
  // A registered client serves every workspace: its step-up form is an owner's to choose.
  api.post('/clients/:id/step-up', route(setClientStepUp, 'owner'));
}
