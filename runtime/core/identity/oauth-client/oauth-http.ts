/**
 * The engine's HTTP: oauth4webapi's `customFetch`, answered by the guarded
 * client (DNS pinned, private ranges refused unless the development policy
 * allows them, no redirects followed, the reply capped), so the library
 * never opens a connection of its own. Every URL it is asked to reach was
 * built from addresses `checkOAuthEndpointUrl` accepted.
 *
 * A failure on the way is the guarded client's own `GatewayError`
 * (`upstream_address_refused`, `upstream_unreachable`, ...), which the
 * library hands back untouched.
 */
import type { CustomFetchOptions } from 'oauth4webapi';
import * as oauth from 'oauth4webapi';
import type { GuardedClient, OutboundReply } from '../../outbound/guarded-client.ts';
import { NO_SECRETS, type Redactor } from '../../outbound/redaction.ts';
import type { UpstreamOAuthContext } from './engine-contract.ts';

/** The most bytes an OAuth reply (metadata, registration, tokens) may have. */
export const MAX_OAUTH_REPLY_BYTES = 65_536;

type AnyFetchOptions = CustomFetchOptions<string, unknown>;

/** A `fetch` for oauth4webapi over the guarded client; `redactor` keeps the request's secrets out of errors. */
export function guardedFetch(
  http: GuardedClient,
  redactor: Redactor = NO_SECRETS,
): (url: string, options: AnyFetchOptions) => Promise<Response> {
  return async (url, options) => {
    const reply = await http.send(
      {
        method: options.method,
        url: new URL(url),
        headers: options.headers,
        ...(options.body === undefined || options.body === null
          ? {}
          : { body: bodyText(options.body) }),
        redactor,
      },
      { maxReplyBytes: MAX_OAUTH_REPLY_BYTES },
    );
    return responseOf(reply);
  };
}

/** The options every oauth4webapi call gets: the guarded fetch, and http allowed (the check already ruled on it). */
export function libraryOptions(
  context: UpstreamOAuthContext,
  redactor?: Redactor,
): { [oauth.customFetch]: ReturnType<typeof guardedFetch>; [oauth.allowInsecureRequests]: true } {
  return {
    [oauth.customFetch]: guardedFetch(context.http, redactor),
    [oauth.allowInsecureRequests]: true,
  };
}

/** GETs a JSON document through the guarded client; the reply as a WHATWG `Response`. */
export async function getJson(http: GuardedClient, url: URL): Promise<Response> {
  const reply = await http.send(
    { method: 'GET', url, headers: { accept: 'application/json' } },
    { maxReplyBytes: MAX_OAUTH_REPLY_BYTES },
  );
  return responseOf(reply);
}

function bodyText(body: unknown): string | Uint8Array {
  if (typeof body === 'string' || body instanceof Uint8Array) return body;
  if (body instanceof URLSearchParams) return body.toString();
  throw new TypeError('the OAuth library sent a body the guarded client cannot carry');
}

function responseOf(reply: OutboundReply): Response {
  const bodyless = reply.status === 204 || reply.status === 304 || reply.status < 200;
  const headers = new Headers();
  for (const [name, value] of Object.entries(reply.headers)) {
    // A reply's own framing is already undone; `Response` must not re-apply it.
    if (name === 'content-encoding' || name === 'transfer-encoding') continue;
    headers.set(name, value);
  }
  return new Response(bodyless ? null : new Uint8Array(reply.body), {
    status: reply.status,
    headers,
  });
}
