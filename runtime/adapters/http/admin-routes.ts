/**
 * The admin HTTP API: the operator verbs over JSON, behind the admin token.
 * Path segments name the workspace and the thing acted on; the body carries
 * the rest. Every verb is the same function the `portcullis` command calls.
 */
import express, { type NextFunction, type Request, type Response } from 'express';
import type { Log } from '../../compose/log.ts';
import type { Gateway } from '../../compose/open-gateway.ts';
import { GatewayError } from '../../core/base/errors.ts';
import { isPlainObject } from '../../core/base/json-value.ts';
import { bearerToken, hashKey } from '../../core/governance/keys.ts';
import { chargeRequest } from '../../core/governance/request-limits.ts';
import { changeActions, listActions } from '../../core/operator/actions.ts';
import {
  createAgent,
  deleteAgent,
  listAgents,
  revokeAgent,
  rotateAgentKey,
} from '../../core/operator/agents.ts';
import {
  approveApproval,
  denyApproval,
  listApprovals,
  showApproval,
} from '../../core/operator/approvals.ts';
import { queryAudit } from '../../core/operator/audit-query.ts';
import { setConnectionApps } from '../../core/operator/connection-apps.ts';
import { connectionViews } from '../../core/operator/connection-views.ts';
import { connect, setConnectionStatus, setCredential } from '../../core/operator/connections.ts';
import { audit, type OperatorContext } from '../../core/operator/context.ts';
import { disconnect } from '../../core/operator/disconnect.ts';
import { grant, listGrants, revokeGrant } from '../../core/operator/grants.ts';
import {
  addMachineClient,
  listMachineClients,
  removeMachineClient,
} from '../../core/operator/machine-clients.ts';
import { rotateMasterKey } from '../../core/operator/master-key.ts';
import { addMember, listMembers, setMemberRole } from '../../core/operator/members.ts';
import { setClientStepUp, showClient } from '../../core/operator/oauth-clients.ts';
import { clearRateLimit, listRateLimits, setRateLimit } from '../../core/operator/rate-limits.ts';
import { setConnectionAuth } from '../../core/operator/remote-auth.ts';
import { classifyTool } from '../../core/operator/remote-classify.ts';
import { connectUrl } from '../../core/operator/remote-connections.ts';
import { importConfig } from '../../core/operator/remote-import.ts';
import { refreshRemote } from '../../core/operator/remote-refresh.ts';
import { signIn, signOut } from '../../core/operator/remote-sign-in.ts';
import { setAgentTools, setWorkspaceTools } from '../../core/operator/tools-modes.ts';
import { createWorkspace, listWorkspaces } from '../../core/operator/workspaces.ts';
import { errorReply, noSuchRoute, sendJson as send, sendError } from './error-reply.ts';
import { JSON_BODY_LIMITS, jsonBody } from './json-body.ts';

type Verb = (ctx: OperatorContext, input: Record<string, unknown>) => Promise<unknown>;

/** Lets through the bearer of an admin token (its operator context in `res.locals`), else 401. */
export function requireAdmin(gateway: Gateway): express.RequestHandler {
  return async (req, res, next) => {
    try {
      const token = bearerToken(req.get('authorization'));
      const admin = token ? await gateway.store.adminTokens.byHash(hashKey(token)) : undefined;
      if (!admin) {
        res.set('WWW-Authenticate', 'Bearer realm="portcullis-admin"');
        sendError(res, new GatewayError('unauthenticated', 'an admin token is required'));
        return;
      }
      const operator = gateway.operator(`admin:${admin.id}`);
      // Per admin token, every replica counting together; each refusal audited.
      const limited = await chargeRequest(
        gateway.state,
        `rate:admin:${admin.id}`,
        gateway.config.rateLimits.admin,
        'this admin token',
      );
      if (limited) {
        await audit(operator, gateway.store, {
          action: 'admin.request',
          workspaceId: null,
          subject: `${req.method} ${req.baseUrl}${req.path}`.slice(0, 200),
          decision: 'denied',
          outcome: null,
          reason: 'rate_limited',
        });
        sendError(res, limited);
        return;
      }
      res.locals.operator = operator;
      next();
    } catch (error) {
      next(error);
    }
  };
}

export function adminRouter(gateway: Gateway, log: Log): express.Router {
  const router = express.Router();
  // Who is asking comes first: nobody's body is read before the token is checked.
  router.use(requireAdmin(gateway));
  router.use(jsonBody(JSON_BODY_LIMITS.admin));

  const route =
    (verb: Verb, status = 200) =>
    async (req: Request, res: Response, next: NextFunction) => {
      try {
        const input = { ...(req.method === 'GET' ? req.query : bodyOf(req)), ...req.params };
        const ctx = res.locals.operator as OperatorContext;
        send(res, status, await verb(ctx, input));
        // A change may alter what agents see: listening agents hear of it now.
        if (req.method !== 'GET') ctx.changed?.();
      } catch (error) {
        next(error);
      }
    };

  const ws = '/workspaces/:workspace';
  router.get(
    '/workspaces',
    route((ctx) => listWorkspaces(ctx)),
  );
  router.post('/workspaces', route(createWorkspace, 201));
  router.put(`${ws}/tools-mode`, route(setWorkspaceTools));
  router.get(`${ws}/agents`, route(listAgents));
  router.post(`${ws}/agents`, route(createAgent, 201));
  router.put(`${ws}/agents/:agent/tools-mode`, route(setAgentTools));
  router.post(`${ws}/agents/:agent/revoke`, route(revokeAgent));
  router.post(`${ws}/agents/:agent/rotate-key`, route(rotateAgentKey));
  router.delete(`${ws}/agents/:agent`, route(deleteAgent));
  router.get(`${ws}/members`, route(listMembers));
  router.post(`${ws}/members`, route(addMember, 201));
  router.put(`${ws}/members/:name/role`, route(setMemberRole));
  router.get(`${ws}/machine-clients`, route(listMachineClients));
  router.post(`${ws}/machine-clients`, route(addMachineClient, 201));
  router.delete(`${ws}/machine-clients/:client`, route(removeMachineClient));
  router.get(`${ws}/oauth-clients/:id`, route(showClient));
  router.put(`${ws}/oauth-clients/:id/step-up`, route(setClientStepUp));
  router.get(`${ws}/connections`, route(connectionViews));
  router.post(`${ws}/connections`, route(connect, 201));
  router.post(`${ws}/remote-connections`, route(connectUrl, 201));
  router.post(`${ws}/remote-connections/import`, route(importConfig, 201));
  router.post(`${ws}/connections/:connection/refresh`, route(refreshRemote));
  router.post(`${ws}/connections/:connection/sign-in`, route(signIn));
  router.put(`${ws}/connections/:connection/auth`, route(setConnectionAuth));
  router.post(`${ws}/connections/:connection/sign-out`, route(signOut));
  router.delete(`${ws}/connections/:connection`, route(disconnect));
  router.put(`${ws}/connections/:connection/tools/:tool/classification`, route(classifyTool));
  router.put(`${ws}/connections/:connection/apps`, route(setConnectionApps));
  router.put(
    `${ws}/connections/:connection/credential`,
    route(async (ctx, input) => {
      await setCredential(ctx, input);
      return { ok: true };
    }),
  );
  router.post(
    `${ws}/connections/:connection/disable`,
    route((ctx, input) => setConnectionStatus(ctx, 'disabled', input)),
  );
  router.post(
    `${ws}/connections/:connection/enable`,
    route((ctx, input) => setConnectionStatus(ctx, 'active', input)),
  );
  router.get(`${ws}/connections/:connection/actions`, route(listActions));
  for (const verb of ['enable', 'ask', 'disable', 'review'] as const) {
    router.post(
      `${ws}/connections/:connection/actions/${verb}`,
      route((ctx, input) => changeActions(ctx, verb, input)),
    );
  }
  router.get(`${ws}/approvals`, route(listApprovals));
  router.get(`${ws}/approvals/:approval`, route(showApproval));
  router.post(`${ws}/approvals/:approval/approve`, route(approveApproval));
  router.post(`${ws}/approvals/:approval/deny`, route(denyApproval));
  router.get(`${ws}/grants`, route(listGrants));
  router.post(`${ws}/grants`, route(grant, 201));
  router.post(
    `${ws}/grants/revoke`,
    route(async (ctx, input) => {
      await revokeGrant(ctx, input);
      return { ok: true };
    }),
  );
  router.get(`${ws}/limits`, route(listRateLimits));
  router.put(`${ws}/limits`, route(setRateLimit));
  router.post(`${ws}/limits/clear`, route(clearRateLimit));
  router.get('/audit', async (req, res, next) => {
    try {
      const events = await queryAudit(res.locals.operator as OperatorContext, req.query);
      if (req.accepts(['application/json', 'application/x-ndjson']) === 'application/x-ndjson') {
        res.type('application/x-ndjson').send(events.map((e) => `${JSON.stringify(e)}\n`).join(''));
      } else send(res, 200, events);
    } catch (error) {
      next(error);
    }
  });
  router.post(
    '/master-key/rotate',
    route((ctx) => rotateMasterKey(ctx)),
  );

  router.use(noSuchRoute);
  router.use(errorReply(log, 'internal error answering the admin API'));
  return router;
}

function bodyOf(req: Request): Record<string, unknown> {
  return isPlainObject(req.body) ? req.body : {};
}
