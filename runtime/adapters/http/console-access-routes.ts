/**
 * The console's routes for who may act in a workspace: its members (listed
 * to every console role, added, given another role or removed by owners
 * alone) and the OAuth clients its members approved (each consent listed
 * with its member, client, scopes, dates and step-up form; revoked by owners
 * and operators, the client's step-up form chosen by owners), and the machine
 * clients operators registered (listed to every console role, removed by
 * owners and operators). Each is the operator verb the CLI and the admin API call.
 */

import type express from 'express';
import type { NextFunction, Request, Response } from 'express';
import type { OperatorContext } from '../../core/operator/context.ts';
import { workspaceOrigins } from '../../core/operator/identity-groups.ts';
import { listMachineClients, removeMachineClient } from '../../core/operator/machine-clients.ts';
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
  api.get('/members/origins', route(workspaceOrigins));
  api.post('/members', route(addMember, 'owner'));
  api.post('/members/:name/role', route(setMemberRole, 'owner'));
  api.post('/members/:name/remove', route(removeMember, 'owner'));
  api.get('/consents', route(listConsents));
  api.post('/consents/:id/revoke', route(revokeConsent, true));
  // A registered client serves every workspace: its step-up form is an owner's to choose.
  api.post('/clients/:id/step-up', route(setClientStepUp, 'owner'));
  // Machine clients: how each authenticates (never a secret), its agent and grants; removed by owners and operators.
  api.get('/machine-clients', route(listMachineClients));
  api.post('/machine-clients/:client/remove', route(removeMachineClient, true));
}
