/**
 * The authorization server's HTTP surface: discovery documents and the
 * `/oauth/*` endpoints. Express reads the request; every decision is in
 * `runtime/core/identity/oauth-server`, which answers what to send.
 */
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { parseJsonText } from '../../core/base/json-text.ts';
import {
  type AuthorizationServer,
  DOCUMENTATION_PATH,
} from '../../core/identity/oauth-server/authorization-server.ts';
import { foreignOriginRefusal } from '../../core/identity/oauth-server/form-origin.ts';
import { MEMBER_CONSENTS_PATH } from '../../core/identity/oauth-server/member-consents-page.ts';
import { PROTECTED_RESOURCE_WELL_KNOWN } from '../../core/identity/oauth-server/metadata.ts';
import { OAuthError } from '../../core/identity/oauth-server/oauth-error.ts';
import { type OAuthReply, oauthErrorReply } from '../../core/identity/oauth-server/oauth-reply.ts';
import { JSON_BODY_LIMITS } from './json-body-limits.ts';

const BODY_LIMIT = '64kb';

export function oauthRouter(oauth: AuthorizationServer): Router {
  const router = express.Router();
  const form = express.urlencoded({ extended: false, limit: BODY_LIMIT, parameterLimit: 50 });
  const text = express.text({ type: () => true, limit: JSON_BODY_LIMITS.oauth });
  const sameOrigin = sameOriginForm(oauth.issuer);

  const metadata = (_req: Request, res: Response) => send(res, oauth.metadata());
  router.get('/.well-known/oauth-authorization-server', metadata);
  router.get('/.well-known/openid-configuration', metadata);
  router.get(
    [PROTECTED_RESOURCE_WELL_KNOWN, `${PROTECTED_RESOURCE_WELL_KNOWN}/*path`],
    (req, res) => {
      send(res, oauth.protectedResource(req.path.slice(PROTECTED_RESOURCE_WELL_KNOWN.length)));
    },
  );

  router.get('/oauth/authorize', (req, res, next) => {
    oauth.authorize(queryOf(req.url)).then((reply) => send(res, reply), next);
  });
  router.post('/oauth/authorize', sameOrigin, form, (req, res, next) => {
    // The permissions the person left checked: one `scope` field each.
    const { scope, ...rest } = (req.body ?? {}) as Record<string, unknown>;
    const scopes = [scope].flat().filter((value): value is string => typeof value === 'string');
    const fields = fieldsOf(rest);
    oauth
      .decide({ ...fields.values, scopes }, cookiesOf(req.headers.cookie), addressOf(req))
      .then((reply) => send(res, reply), next);
  });
  router.get(MEMBER_CONSENTS_PATH, (req, res, next) => {
    oauth.memberConsents(cookiesOf(req.headers.cookie)).then((reply) => send(res, reply), next);
  });
  router.post(MEMBER_CONSENTS_PATH, sameOrigin, form, (req, res, next) => {
    const fields = fieldsOf(req.body);
    oauth
      .actOnMemberConsents(fields.values, cookiesOf(req.headers.cookie), addressOf(req))
      .then((reply) => send(res, reply), next);
  });
  router.post('/oauth/token', form, (req, res, next) => {
    const fields = fieldsOf(req.body);
    if (fields.repeated) return send(res, repeatedReply(fields.repeated));
    oauth
      .token(fields.values, req.headers.authorization, addressOf(req))
      .then((reply) => send(res, reply), next);
  });
  router.post('/oauth/revoke', form, (req, res, next) => {
    const fields = fieldsOf(req.body);
    if (fields.repeated) return send(res, repeatedReply(fields.repeated));
    oauth.revoke(fields.values).then((reply) => send(res, reply), next);
  });
  router.post('/oauth/register', text, (req, res, next) => {
    // Read as every JSON body is (json-body.ts); what is not a JSON object is refused as metadata.
    const parsed = typeof req.body === 'string' ? parseJsonText(req.body) : undefined;
    const body = parsed !== undefined && 'value' in parsed ? parsed.value : undefined;
    oauth.register(body, addressOf(req)).then((reply) => send(res, reply), next);
  });
  router.get('/oauth/jwks', (_req, res) => send(res, oauth.jwks()));
  router.get(DOCUMENTATION_PATH, (_req, res) => send(res, oauth.documentationPage()));
  return router;
}

/** Refuses a member page's form posted from another origin (form-origin.ts), before reading it. */
export function sameOriginForm(issuer: string) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const refusal = foreignOriginRefusal(issuer, req.headers.origin);
    if (refusal) send(res, refusal);
    else next();
  };
}

/** Writes a core reply out: its status, headers and body. */
export function send(res: Response, reply: OAuthReply): void {
  res.status(reply.status);
  for (const [name, value] of Object.entries(reply.headers)) res.setHeader(name, value);
  res.send(reply.body);
}

function repeatedReply(name: string): OAuthReply {
  return oauthErrorReply(new OAuthError('invalid_request', `${name}: given more than once`));
}

/** A form's fields as strings; a field given twice is named (RFC 6749 §3.1, §3.2). */
function fieldsOf(body: unknown): {
  values: Record<string, string | undefined>;
  repeated?: string;
} {
  const values: Record<string, string | undefined> = {};
  if (typeof body !== 'object' || body === null) return { values };
  for (const [name, value] of Object.entries(body as Record<string, unknown>)) {
    if (Array.isArray(value)) return { values, repeated: name };
    if (typeof value === 'string') values[name] = value;
  }
  return { values };
}

/** A request's query exactly as sent (a parameter given twice stays twice). */
export function queryOf(url: string): URLSearchParams {
  return new URLSearchParams(url.slice(url.indexOf('?') + 1 || url.length));
}

export function cookiesOf(header: string | undefined): Record<string, string> {
  const cookies: Record<string, string> = {};
  for (const part of (header ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0) cookies[part.slice(0, at).trim()] = part.slice(at + 1).trim();
  }
  return cookies;
}

/**
 * The client's address, what sign-in and registration limits count by: the
 * peer's, or behind a trusted proxy (`PORTCULLIS_TRUSTED_PROXIES`) the one
 * its `X-Forwarded-For` names.
 */
export function addressOf(req: Request): string {
  return req.ip ?? req.socket.remoteAddress ?? 'unknown';
}
