/**
 * Signing members in at the company's identity provider, over HTTP:
 * `GET /sign-in/idp/<name>` sends the browser there (to come back to the
 * console), `GET /sign-in/idp/callback` takes it back and, for the console,
 * opens its session and goes to `/console/`, or, for the consent page, shows
 * its review step. The consent page starts its own sign-ins from its form
 * (`POST /oauth/authorize`). A refusal is a page naming its reason code,
 * never what the provider sent.
 */
import express, { type Router } from 'express';
import type { Gateway } from '../../compose/open-gateway.ts';
import { GatewayError, REASONS } from '../../core/base/errors.ts';
import { problemPage } from '../../core/identity/oauth-server/html-page.ts';
import {
  IDP_BROWSER_COOKIE,
  IDP_CALLBACK_PATH,
  IDP_SIGN_IN_PATH,
} from '../../core/identity/oauth-server/idp-sign-in.ts';
import { redirectReply } from '../../core/identity/oauth-server/oauth-reply.ts';
import {
  CONSOLE_COOKIE,
  CONSOLE_PATH,
  CONSOLE_SESSION_IDLE_MS,
  ConsoleAccess,
} from '../../core/operator/console-access.ts';
import { cookiesOf, queryOf, send } from './oauth-routes.ts';

export function idpRouter(gateway: Gateway): Router {
  const router = express.Router();
  const { oauth } = gateway;
  const access = new ConsoleAccess(oauth.members, oauth.issuer, {
    store: gateway.store,
    now: () => new Date(),
  });
  router.get(IDP_CALLBACK_PATH, async (req, res, next) => {
    try {
      const signedIn = await oauth.finishIdpSignIn(queryOf(req.url), cookiesOf(req.headers.cookie));
      // The pending sign-in was taken: the cookie that tied it to this browser is done too.
      const done = `${IDP_BROWSER_COOKIE}=; Path=${IDP_SIGN_IN_PATH}; Max-Age=0; HttpOnly; SameSite=Lax`;
      if (signedIn.purpose.to === 'consent') {
        const reply = await oauth.reviewAfterIdpSignIn(signedIn);
        reply.headers['Set-Cookie'] = done;
        send(res, reply);
        return;
      }
      const sessionId = await access.sessionFor(signedIn.member);
      const reply = redirectReply(`${CONSOLE_PATH}/`, 303);
      reply.headers['Set-Cookie'] = [
        done,
        `${CONSOLE_COOKIE}=${sessionId}; Path=${CONSOLE_PATH}; Max-Age=${CONSOLE_SESSION_IDLE_MS / 1000}; HttpOnly; SameSite=Strict${access.secureCookies ? '; Secure' : ''}`,
      ];
      send(res, reply);
    } catch (error) {
      refused(res, error, next);
    }
  });
  router.get(`${IDP_SIGN_IN_PATH}/:name`, async (req, res, next) => {
    try {
      send(res, await oauth.startIdpSignIn(req.params.name, { to: 'console' }));
    } catch (error) {
      refused(res, error, next);
    }
  });
  return router;
}

function refused(res: express.Response, error: unknown, next: express.NextFunction): void {
  if (!(error instanceof GatewayError)) {
    next(error);
    return;
  }
  const reason = REASONS[error.code];
  const text = reason.expose
    ? error.code === 'console_role_refused'
      ? error.message
      : reason.message
    : 'The sign-in failed.';
  send(res, problemPage(reason.status, 'Sign-in refused', `${text} (${error.code})`));
}
