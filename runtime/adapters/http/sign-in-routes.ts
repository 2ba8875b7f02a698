/**
 * Signing in to remote MCP servers, over HTTP: the page a sign-in link
 * opens (and its member sign-in form) and the authorization server's
 * callback (this deployment's Client ID Metadata Document is
 * `client-metadata-route.ts`'s). Express reads the request; `runtime/core`
 * answers.
 */
import express, { type Router } from 'express';
import type { Gateway } from '../../compose/open-gateway.ts';
import { CALLBACK_PATH } from '../../core/identity/oauth-client/upstream-oauth.ts';
import { SIGN_IN_PAGE_PATH } from '../../core/identity/oauth-client/upstream-sign-in.ts';
import {
  callbackPage,
  signInLinkMemberForm,
  signInLinkPage,
} from '../../core/operator/sign-in-pages.ts';
import { addressOf, cookiesOf, queryOf, sameOriginForm, send } from './oauth-routes.ts';

export function signInRouter(gateway: Gateway): Router {
  const router = express.Router();
  const ctx = () => gateway.operator('system');
  const form = express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 10 });
  router.get(SIGN_IN_PAGE_PATH, (req, res, next) => {
    signInLinkPage(
      ctx(),
      gateway.oauth.members,
      queryOf(req.url),
      cookiesOf(req.headers.cookie),
    ).then((reply) => send(res, reply), next);
  });
  // A member's link: its member signs in on the page first.
  router.post(SIGN_IN_PAGE_PATH, sameOriginForm(gateway.oauth.issuer), form, (req, res, next) => {
    signInLinkMemberForm(
      ctx(),
      gateway.oauth.members,
      stringFields(req.body),
      cookiesOf(req.headers.cookie),
      addressOf(req),
    ).then((reply) => send(res, reply), next);
  });
  router.get(CALLBACK_PATH, (req, res, next) => {
    callbackPage(ctx(), queryOf(req.url), cookiesOf(req.headers.cookie)).then(
      (reply) => send(res, reply),
      next,
    );
  });
  return router;
}

function stringFields(body: unknown): Record<string, string | undefined> {
  const fields: Record<string, string | undefined> = {};
  if (typeof body !== 'object' || body === null) return fields;
  for (const [name, value] of Object.entries(body as Record<string, unknown>))
    if (typeof value === 'string') fields[name] = value;
  return fields;
}
