/**
 * The operator console at `/console`: its built pages (`dist/console/`, made
 * by `npm run build` from `runtime/console/`) under a strict
 * Content-Security-Policy, and its JSON API under `/console/api`. The API is
 * thin: who is asking and what their role allows is `ConsoleAccess`'s
 * decision, the work is the operator verbs the CLI and the admin API call,
 * the workspace is always the signed-in member's own, and every refusal is
 * the one error shape (`{error: {code, message, field}}`).
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import express, { type Request, type Response } from 'express';
import type { Log } from '../../compose/log.ts';
import type { Gateway } from '../../compose/open-gateway.ts';
import { isPlainObject } from '../../core/base/json-value.ts';
import { IDP_SIGN_IN_PATH } from '../../core/identity/oauth-server/idp-sign-in.ts';
import { changeActions, listActions } from '../../core/operator/actions.ts';
import { createAgent, listAgents, revokeAgent } from '../../core/operator/agents.ts';
import {
  approveApproval,
  countPendingApprovals,
  denyApproval,
  listApprovals,
  showApproval,
} from '../../core/operator/approvals.ts';
import { queryAudit } from '../../core/operator/audit-query.ts';
import { setConnectionApps } from '../../core/operator/connection-apps.ts';
import {
  connectionSummaries,
  connectionSummary,
} from '../../core/operator/connection-summaries.ts';
import {
  CONSOLE_COOKIE,
  CONSOLE_PATH,
  ConsoleAccess,
  type ConsoleRequest,
  type ConsoleSession,
  CSRF_HEADER,
} from '../../core/operator/console-access.ts';
import type { OperatorContext } from '../../core/operator/context.ts';
import { grant, listGrants, revokeGrant } from '../../core/operator/grants.ts';
import { accessRoutes, type ConsoleRoute } from './console-access-routes.ts';
import { consoleActivityRoutes } from './console-activity-routes.ts';
import { connectOwnRoutes } from './console-connect-routes.ts';
import { galleryRoutes } from './console-gallery-routes.ts';
import { errorReply, noSuchRoute, sendJson } from './error-reply.ts';
import { JSON_BODY_LIMITS, jsonBody } from './json-body.ts';
import { addressOf, cookiesOf } from './oauth-routes.ts';

/** The page's headers: scripts, styles and data from this origin only; never framed. */
const PAGE_HEADERS = {
  'Content-Security-Policy': [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self'",
    "connect-src 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; '),
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'same-origin',
};

/** `assets`: the built console's folder; without it (not built), `/console` says how to build it. */
export function consoleRouter(gateway: Gateway, log: Log, assets: URL | undefined): express.Router {
  const router = express.Router();
  const access = new ConsoleAccess(gateway.oauth.members, gateway.oauth.issuer, {
    store: gateway.store,
    now: () => new Date(),
  });
  router.use('/api', consoleApi(gateway, access, log));
  const folder = assets ? fileURLToPath(assets) : undefined;
  const index =
    folder && existsSync(`${folder}/index.html`)
      ? readFileSync(`${folder}/index.html`, 'utf8')
      : undefined;
  if (folder && index) {
    router.use(
      '/assets',
      express.static(`${folder}/assets`, {
        immutable: true,
        maxAge: '365d',
        index: false,
        setHeaders: (res) => res.set(PAGE_HEADERS),
      }),
    );
  }
  router.get('/', (_req, res) => {
    res.set({ ...PAGE_HEADERS, 'Cache-Control': 'no-store' });
    if (index) res.type('html').send(index);
    else
      res
        .status(503)
        .type('text/plain')
        .send('The console is not built: run npm run build, then start the gateway again.\n');
  });
  router.use(noSuchRoute);
  return router;
}

function consoleApi(gateway: Gateway, access: ConsoleAccess, log: Log): express.Router {
  const api = express.Router();
  api.use((_req, res, next) => {
    res.set({ 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' });
    next();
  });
  api.use(jsonBody(JSON_BODY_LIMITS.console));
  const cookie = (value: string, maxAge: number) =>
    `${CONSOLE_COOKIE}=${value}; Path=${CONSOLE_PATH}; Max-Age=${maxAge}; HttpOnly; SameSite=Strict${
      access.secureCookies ? '; Secure' : ''
    }`;
  /** The cookie again, with the Max-Age its session was renewed to by this request. */
  const renewed = (res: Response, sessionId: string | undefined, session: ConsoleSession) => {
    if (sessionId) res.set('Set-Cookie', cookie(sessionId, Math.floor(session.ttlMs / 1000)));
  };

  const sessionView = async (session: ConsoleSession) => {
    const workspace = await gateway.store.workspaces.byId(session.member.workspaceId);
    return {
      member: { name: session.member.name, role: session.member.role },
      workspace: { name: workspace?.name ?? session.member.workspaceId },
      csrf: session.csrf,
    };
  };

  api.post('/sign-in', async (req, res, next) => {
    try {
      const body = bodyOf(req);
      const { sessionId, session } = await access.signIn(
        requestOf(req),
        body.name,
        body.password,
        addressOf(req),
      );
      renewed(res, sessionId, session);
      sendJson(res, 200, await sessionView(session));
    } catch (error) {
      next(error);
    }
  });
  // Before a session: the identity providers offered ("Sign in with <name>") and whether the password is.
  api.get('/sign-in/options', async (_req, res, next) => {
    try {
      const offers = await gateway.oauth.idpOffers();
      sendJson(res, 200, {
        providers: offers.names.map((name) => ({
          name,
          href: `${IDP_SIGN_IN_PATH}/${encodeURIComponent(name)}`,
        })),
        password: !offers.only,
      });
    } catch (error) {
      next(error);
    }
  });
  api.post('/sign-out', async (req, res, next) => {
    try {
      await access.signOut(requestOf(req));
      res.set('Set-Cookie', cookie('', 0));
      sendJson(res, 200, { ok: true });
    } catch (error) {
      next(error);
    }
  });
  api.get('/session', async (req, res, next) => {
    try {
      const request = requestOf(req);
      const session = await access.reader(request);
      renewed(res, request.sessionId, session);
      sendJson(res, 200, await sessionView(session));
    } catch (error) {
      next(error);
    }
  });

  /** A verb on the member's own workspace: read by any console role, changed by owners and operators. */
  const route: ConsoleRoute =
    (verb, changes = false) =>
    async (req, res, next) => {
      try {
        const request = requestOf(req);
        const session =
          changes === 'owner'
            ? await access.owner(request)
            : changes
              ? await access.changer(request)
              : await access.reader(request);
        renewed(res, request.sessionId, session);
        const ctx = gateway.operator(session.actor);
        const input = {
          ...(changes ? bodyOf(req) : stringQuery(req)),
          ...req.params,
          // Last: a request never names another workspace.
          workspace: session.member.workspaceId,
        };
        sendJson(res, 200, await verb(ctx, input));
        if (changes) ctx.changed?.();
      } catch (error) {
        next(error);
      }
    };

  api.get('/connections', route(connectionSummaries));
  api.get('/connections/:connection', route(connectionSummary));
  api.get('/connections/:connection/actions', route(listActions));
  for (const verb of ['enable', 'ask', 'disable', 'review'] as const) {
    api.post(
      `/connections/:connection/actions/${verb}`,
      route((ctx, input) => changeActions(ctx, verb, input), true),
    );
  }
  api.post('/connections/:connection/apps', route(setConnectionApps, true));
  api.get('/approvals', route(listApprovals));
  api.get('/approvals/count', route(countPendingApprovals));
  api.get('/approvals/:approval', route(showApproval));
  api.post('/approvals/:approval/approve', route(approveApproval, true));
  api.post('/approvals/:approval/deny', route(denyApproval, true));
  api.get('/agents', route(listAgents));
  api.post('/agents', route(createAgent, true));
  api.post('/agents/:agent/revoke', route(revokeAgent, true));
  api.get('/grants', route(listGrants));
  api.post('/grants', route(grant, true));
  api.post(
    '/grants/revoke',
    route(async (ctx, input) => {
      await revokeGrant(ctx, input);
      return { ok: true };
    }, true),
  );
  api.get('/audit', route(auditPage));
  connectOwnRoutes(api, route);
  accessRoutes(api, route);
  galleryRoutes(api, route);
  consoleActivityRoutes(api, route);

  api.use(noSuchRoute);
  api.use(errorReply(log, 'internal error answering the console API'));
  return api;
}

const AUDIT_PAGE = 50;

/** One page of the audit log, newest first, and the cursor of the next (`beforeId`), if there is one. */
async function auditPage(ctx: OperatorContext, input: Record<string, unknown>) {
  const filters = Object.fromEntries(Object.entries(input).filter(([, value]) => value !== ''));
  const events = await queryAudit(ctx, { ...filters, limit: AUDIT_PAGE + 1 });
  const page = events.slice(0, AUDIT_PAGE);
  return {
    events: page,
    nextBeforeId: events.length > AUDIT_PAGE ? (page.at(-1)?.id ?? null) : null,
  };
}

function requestOf(req: Request): ConsoleRequest {
  return {
    sessionId: cookiesOf(req.headers.cookie)[CONSOLE_COOKIE],
    csrf: req.get(CSRF_HEADER),
    origin: req.get('origin'),
    what: `${req.method} ${req.path}`,
  };
}

function bodyOf(req: Request): Record<string, unknown> {
  return isPlainObject(req.body) ? req.body : {};
}

/** The query's single string values (a repeated one is taken once: the first). */
function stringQuery(req: Request): Record<string, string> {
  const query: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.query)) {
    const first = Array.isArray(value) ? value[0] : value;
    if (typeof first === 'string') query[name] = first;
  }
  return query;
}
