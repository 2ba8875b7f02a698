/**
 * The gateway's configuration, from the environment, validated with zod before
 * the start makes anything: every variable, the content of the keys given
 * (a signing key's type and size, the master key's length) and the data
 * folder (without touching it). Every bad value is reported at once, each a
 * line naming the variable and what it takes; a secret's value never appears.
 */

import { isIP } from 'node:net';
import { z } from 'zod';
import { didYouMean } from '../core/base/nearest-word.ts';
import { signingKeyPemProblem } from '../core/identity/oauth-server/signing-key-pem.ts';
import { DEFAULT_SCOPE, parseScope } from '../core/identity/principals/scopes.ts';
import { IDP_SECRET_PREFIX } from '../core/model/identity.ts';
import type { BucketRule } from '../core/ports/shared-state/token-bucket.ts';
import { ConfigError, type ConfigProblem } from './config-error.ts';
import { dataDirProblem } from './data-dir.ts';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'silent'] as const;

/** A whole number written as digits only (no sign, no blank, no `1e3`), within bounds. */
const wholeNumber = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d{1,10}$/)
    .transform(Number)
    .pipe(z.number().min(min).max(max));

export const ConfigSchema = z.strictObject({
  HOST: z.string().trim().min(1).default('127.0.0.1'),
  PORT: wholeNumber(0, 65_535).default(8080),
  PORTCULLIS_DATA_DIR: z.string().trim().min(1).default('./data'),
  /** `postgres://…` selects PostgreSQL; unset, the embedded SQLite file in the data folder. */
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//)
    .refine(isUrlWithHost)
    .optional(),
  /**
   * `redis://…` or `rediss://…`: the shared ephemeral state (sessions, pending
   * input, change fan-out) lives in Redis, so several replicas serve together;
   * unset, in this process.
   */
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//)
    .refine(isUrlWithHost)
    .optional(),
  /** 32 bytes, base64 or base64url; unset, a key file in the data folder (created on first start). */
  PORTCULLIS_MASTER_KEY: z
    .string()
    .regex(/^[A-Za-z0-9+/_-]{43}=?$/)
    .refine((value) => Buffer.from(value, 'base64url').byteLength === 32)
    .optional(),
  /**
   * Development only: send a provider's calls elsewhere, e.g.
   * `unikraft=http://127.0.0.1:4010,unikraft/sandbox=http://127.0.0.1:4011`
   * (Prism per document). The url stands in for the action's server URL. The catalog's
   * host checks still run on the real host first; loopback and private
   * addresses become reachable, so the gateway says so loudly at start.
   */
  PORTCULLIS_DEV_UPSTREAMS: z
    .string()
    .regex(
      /^[a-z0-9-]+(\/[a-z0-9-]+)?=https?:\/\/[^,\s]+(,[a-z0-9-]+(\/[a-z0-9-]+)?=https?:\/\/[^,\s]+)*$/,
    )
    .refine((value) =>
      value.split(',').every((pair) => isUrlWithHost(pair.slice(pair.indexOf('=') + 1))),
    )
    .optional(),
  /**
   * The gateway's public address (e.g. `https://gateway.example.com`), when
   * clients reach it by a name other than loopback: its host and origin are
   * allowed by the DNS-rebinding checks on `/mcp`.
   */
  PORTCULLIS_PUBLIC_URL: z.url({ protocol: /^https?$/ }).optional(),
  /**
   * Redirect URI patterns the authorization server allows (comma-separated;
   * `*` stands for any characters but / ? # @), e.g.
   * `https://chatgpt.com/connector/oauth/*`; unset, any https or loopback http URI.
   */
  PORTCULLIS_OAUTH_REDIRECT_URIS: z
    .string()
    .regex(/^https?:\/\/[^,\s]+(,https?:\/\/[^,\s]+)*$/)
    // A pattern's `*` stands for characters a URL may hold (a port's too); with each a 0, it must parse.
    .refine((value) =>
      value.split(',').every((pattern) => isUrlWithHost(pattern.replaceAll('*', '0'))),
    )
    .optional(),
  /**
   * The scopes a client gets when it asks for none, and the first 401's
   * challenge names (space- or comma-separated), e.g. `tools:read tools:write`;
   * unset, `tools:read`. The member approves them, or fewer, on the consent page.
   */
  PORTCULLIS_OAUTH_DEFAULT_SCOPES: z
    .string()
    .refine((value) => {
      const parsed = parseScope(scopeWords(value).join(' '));
      return 'scopes' in parsed && parsed.scopes.length > 0;
    })
    .optional(),
  /**
   * How a tool call whose token lacks the scope is refused: `http` (HTTP 403
   * with the challenge, MCP's step-up) or `result` (an `isError` result with
   * it in `_meta["mcp/www_authenticate"]`, OpenAI's Apps SDK).
   */
  PORTCULLIS_OAUTH_STEP_UP: z.enum(['http', 'result']).default('http'),
  /** A PKCS#8 or PKCS#1 PEM private key (EC P-256 or RSA) that signs access tokens instead of the stored one. */
  PORTCULLIS_OAUTH_SIGNING_KEY_PEM: z
    .string()
    .superRefine((pem, ctx) => {
      const got = signingKeyPemProblem(pem);
      if (got !== undefined) ctx.addIssue({ code: 'custom', message: got, params: { got } });
    })
    .optional(),
  /** Browser origins allowed to call /mcp, the discovery documents and the token, registration and revocation endpoints (comma-separated; `*`: any). */
  PORTCULLIS_CORS_ORIGINS: z
    .string()
    .regex(/^(\*|https?:\/\/[^,\s/]+(,https?:\/\/[^,\s/]+)*)$/)
    .refine((value) => value === '*' || value.split(',').every(isUrlWithHost))
    .optional(),
  /**
   * The reverse proxies in front of the gateway whose `X-Forwarded-For` is
   * believed (comma-separated addresses, CIDRs, or `loopback`, `linklocal`,
   * `uniquelocal`): sign-in and registration limits then count the client's
   * address, not the proxy's.
   */
  PORTCULLIS_TRUSTED_PROXIES: z
    .string()
    .regex(/^[0-9A-Za-z.:/]+(,[0-9A-Za-z.:/]+)*$/)
    .refine((value) => value.split(',').every(isProxyAddress))
    .optional(),
  /** The operator's log (JSON lines on stderr). */
  PORTCULLIS_LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
  /** Development only: let outbound calls reach loopback and private networks (`1`). */
  PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: z.enum(['0', '1']).optional(),
  /** The whole of one upstream call, however slowly its reply trickles in. */
  PORTCULLIS_UPSTREAM_DEADLINE_MS: wholeNumber(1_000, 3_600_000).default(60_000),
  /**
   * Rate limits (docs/rate-limits.md): calls a minute and the burst, per
   * agent and per connection (0: none, the default; overrides still apply),
   * per OAuth client and address at the token endpoint, per admin token.
   */
  PORTCULLIS_RATE_LIMIT_AGENT_PER_MINUTE: wholeNumber(0, 1_000_000).default(0),
  PORTCULLIS_RATE_LIMIT_AGENT_BURST: wholeNumber(1, 1_000_000).optional(),
  PORTCULLIS_RATE_LIMIT_CONNECTION_PER_MINUTE: wholeNumber(0, 1_000_000).default(0),
  PORTCULLIS_RATE_LIMIT_CONNECTION_BURST: wholeNumber(1, 1_000_000).optional(),
  PORTCULLIS_RATE_LIMIT_CLIENT_PER_MINUTE: wholeNumber(0, 1_000_000).default(300),
  PORTCULLIS_RATE_LIMIT_CLIENT_BURST: wholeNumber(1, 1_000_000).optional(),
  PORTCULLIS_RATE_LIMIT_ADMIN_PER_MINUTE: wholeNumber(0, 1_000_000).default(1_200),
  PORTCULLIS_RATE_LIMIT_ADMIN_BURST: wholeNumber(1, 1_000_000).optional(),
  /** `auto` tools mode: discovery once an agent may call more tools than this. */
  PORTCULLIS_DISCOVERY_THRESHOLD: wholeNumber(0, 100_000).default(40),
  /** On SIGTERM, how long the calls under way have to finish (under Kubernetes' 30 s grace). */
  PORTCULLIS_SHUTDOWN_DEADLINE_MS: wholeNumber(0, 3_600_000).default(25_000),
  /** A port of its own for `/metrics`, without authentication (a scraper inside the cluster); 0: any free port. */
  PORTCULLIS_METRICS_PORT: wholeNumber(0, 65_535).optional(),
  /** `block`: a remote item whose pinned text is flagged for review is approved only with force. */
  PORTCULLIS_REVIEW_FLAGGED: z.enum(['show', 'block']).default('show'),
  /** How long a call held for approval waits for an approver (and an approved one for its run). */
  PORTCULLIS_APPROVAL_TTL_S: wholeNumber(10, 604_800).default(900),
  /** How long a client that does not take tasks waits on its open request for an approval. */
  PORTCULLIS_APPROVAL_WAIT_MS: wholeNumber(0, 3_600_000).default(60_000),
  /** `allow`: a member may approve a call an agent made for them. */
  PORTCULLIS_APPROVAL_SELF: z.enum(['refuse', 'allow']).default('refuse'),
  /** Where a signed notice of each held call is POSTed (none without). */
  PORTCULLIS_APPROVAL_WEBHOOK_URL: z.url({ protocol: /^https?$/ }).optional(),
  /** The notice's signing secret (`whsec_<base64>`, or any text); needed with the URL. */
  PORTCULLIS_APPROVAL_WEBHOOK_SECRET: z.string().min(16).optional(),
  /** Unset: on with the embedded SQLite store, off with PostgreSQL. */
  PORTCULLIS_AUDIT_JOURNAL: z.enum(['on', 'off']).optional(),
});

type Variable = keyof typeof ConfigSchema.shape;

const PER_MINUTE = 'a whole number of calls a minute from 0 (no limit) to 1000000';
const BURST = 'a whole number of calls from 1 to 1000000 (unset: the per-minute figure)';

/**
 * What each variable takes, as every error about it says; `secret` values are
 * never repeated back, `words` are the values a near miss is matched against.
 */
const ACCEPTS: Record<Variable, { takes: string; secret?: true; words?: readonly string[] }> = {
  HOST: { takes: 'an address or host name to listen on, e.g. 127.0.0.1 or 0.0.0.0' },
  PORT: { takes: 'a port number from 0 to 65535 (0: any free port)' },
  PORTCULLIS_DATA_DIR: { takes: 'the path of a folder the gateway may write' },
  DATABASE_URL: { takes: 'a postgres:// or postgresql:// URL', secret: true },
  REDIS_URL: { takes: 'a redis:// or rediss:// URL', secret: true },
  PORTCULLIS_MASTER_KEY: { takes: '32 bytes in base64 or base64url', secret: true },
  PORTCULLIS_DEV_UPSTREAMS: {
    takes:
      'provider[/document]=http(s)://url pairs, comma-separated, e.g. unikraft=http://127.0.0.1:4010',
  },
  PORTCULLIS_PUBLIC_URL: { takes: 'an http(s):// URL, e.g. https://gateway.example.com' },
  PORTCULLIS_OAUTH_REDIRECT_URIS: {
    takes: 'comma-separated http(s):// URI patterns, e.g. https://chatgpt.com/connector/oauth/*',
  },
  PORTCULLIS_OAUTH_DEFAULT_SCOPES: {
    takes:
      'scopes separated by spaces or commas: tools:read, tools:write, tools:destructive (each may end in :<connection>)',
  },
  PORTCULLIS_OAUTH_STEP_UP: { takes: 'http or result' },
  PORTCULLIS_OAUTH_SIGNING_KEY_PEM: {
    takes: 'a PEM private key (EC P-256 for ES256, or RSA 2048+ for RS256)',
    secret: true,
  },
  PORTCULLIS_CORS_ORIGINS: {
    takes: '* or comma-separated origins, e.g. https://inspector.example,http://localhost:6274',
  },
  PORTCULLIS_TRUSTED_PROXIES: {
    takes: 'comma-separated proxy addresses or CIDRs, or loopback, linklocal, uniquelocal',
  },
  PORTCULLIS_LOG_LEVEL: { takes: `one of ${LOG_LEVELS.join(', ')}`, words: LOG_LEVELS },
  PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: { takes: '1 (on) or 0 (off)', words: ['0', '1'] },
  PORTCULLIS_UPSTREAM_DEADLINE_MS: {
    takes: 'a whole number of milliseconds from 1000 to 3600000',
  },
  PORTCULLIS_RATE_LIMIT_AGENT_PER_MINUTE: { takes: PER_MINUTE },
  PORTCULLIS_RATE_LIMIT_AGENT_BURST: { takes: BURST },
  PORTCULLIS_RATE_LIMIT_CONNECTION_PER_MINUTE: { takes: PER_MINUTE },
  PORTCULLIS_RATE_LIMIT_CONNECTION_BURST: { takes: BURST },
  PORTCULLIS_RATE_LIMIT_CLIENT_PER_MINUTE: { takes: PER_MINUTE },
  PORTCULLIS_RATE_LIMIT_CLIENT_BURST: { takes: BURST },
  PORTCULLIS_RATE_LIMIT_ADMIN_PER_MINUTE: { takes: PER_MINUTE },
  PORTCULLIS_RATE_LIMIT_ADMIN_BURST: { takes: BURST },
  PORTCULLIS_DISCOVERY_THRESHOLD: { takes: 'a whole number of tools from 0 to 100000' },
  PORTCULLIS_SHUTDOWN_DEADLINE_MS: {
    takes: 'a whole number of milliseconds from 0 to 3600000',
  },
  PORTCULLIS_METRICS_PORT: { takes: 'a port number from 0 to 65535 (0: any free port)' },
  PORTCULLIS_REVIEW_FLAGGED: { takes: 'show or block', words: ['show', 'block'] },
  PORTCULLIS_APPROVAL_TTL_S: { takes: 'a whole number of seconds from 10 to 604800' },
  PORTCULLIS_APPROVAL_WAIT_MS: { takes: 'a whole number of milliseconds from 0 to 3600000' },
  PORTCULLIS_APPROVAL_SELF: { takes: 'refuse or allow', words: ['refuse', 'allow'] },
  PORTCULLIS_APPROVAL_WEBHOOK_URL: { takes: 'an http(s):// URL' },
  PORTCULLIS_APPROVAL_WEBHOOK_SECRET: {
    takes: 'at least 16 characters (whsec_<base64>, or any text)',
  },
  PORTCULLIS_AUDIT_JOURNAL: { takes: 'on or off', words: ['on', 'off'] },
};

/** What each kind of rate limit is by default (`PORTCULLIS_RATE_LIMIT_*`); undefined: none. */
export interface RateLimitDefaults {
  /** Every governed call of one agent (a member's client is an agent of its own). */
  agent: BucketRule | undefined;
  /** Every governed call on one connection. */
  connection: BucketRule | undefined;
  /** Token requests of one OAuth client from one address. */
  client: BucketRule | undefined;
  /** Admin API requests with one admin token. */
  admin: BucketRule | undefined;
}

export interface Config {
  /** Where the server listens (`HOST`, `PORT`): the listen address, not a Host header or an upstream. */
  listenAddress: string;
  listenPort: number;
  dataDir: string;
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  masterKey: Buffer | undefined;
  /** `provider` or `provider/document` → the URL that stands in for its server URL (development only). */
  devUpstreams: Record<string, string>;
  allowPrivateNetworks: boolean;
  publicUrl: URL | undefined;
  /** Redirect URI patterns of the authorization server; empty: any valid one. */
  oauthRedirectUris: string[];
  /** The scopes a client that asks for none gets, and the first challenge names (sorted, at least one). */
  oauthDefaultScopes: string[];
  /** How a call refused `insufficient_scope` is answered: HTTP 403 with the challenge, or a result carrying it. */
  oauthStepUp: 'http' | 'result';
  /** A PEM private key that signs access tokens, instead of the one sealed in the store. */
  oauthSigningKeyPem: string | undefined;
  /** Browser origins allowed by CORS; `['*']`: any; empty: none. */
  corsOrigins: string[];
  /** Proxies whose `X-Forwarded-For` names the client's address; empty: the peer's address counts. */
  trustedProxies: string[];
  logLevel: string;
  /** The total deadline of one upstream call, in milliseconds. */
  upstreamDeadlineMs: number;
  /** The default rate limits; undefined: none (docs/rate-limits.md). */
  rateLimits: RateLimitDefaults;
  /** An agent in `auto` tools mode is served the discovery tools once it may call more tools than this. */
  discoveryThreshold: number;
  /** On SIGTERM or SIGINT, how long the calls under way have to finish, in milliseconds. */
  shutdownDeadlineMs: number;
  /** Where `/metrics` is also served without authentication; undefined: only on the main port, to an admin. */
  metricsPort: number | undefined;
  /** Whether a flagged remote item may be approved without force (`show`) or not (`block`). */
  reviewFlagged: 'show' | 'block';
  /** Calls held for approval (docs/approvals.md). */
  approvals: {
    ttlMs: number;
    waitMs: number;
    self: 'refuse' | 'allow';
    /** The signed notice of each held call, when configured. */
    webhook?: { url: string; secret: string };
  };
  /**
   * Calls' audit events through the journal (the default on SQLite: one append
   * before the reply, folded in batches) or straight to the store (the default
   * on PostgreSQL, where replicas read each other's events at once).
   */
  auditJournal: boolean;
  /**
   * `PORTCULLIS_TOOL_OAUTH_[<CONNECTION>_]CLIENT_ID` / `_SECRET`: upstream
   * OAuth clients preconfigured for this deployment, by variable name.
   */
  toolOAuthClients: Record<string, string>;
  /**
   * `PORTCULLIS_IDP_*`: the client secrets of the identity providers members
   * sign in through, by variable name (`portcullis idp add --client-secret-env`).
   */
  idpSecrets: Record<string, string>;
}

const KNOWN = Object.keys(ConfigSchema.shape) as Variable[];

export function configFromEnvironment(environment: Record<string, string | undefined>): Config {
  // An empty value is the same as none; a blank one (spaces) is a mistake, and refused.
  const relevant = Object.fromEntries(
    KNOWN.filter((k) => environment[k] !== undefined && environment[k] !== '').map((k) => [
      k,
      environment[k],
    ]),
  );
  const parsed = ConfigSchema.safeParse(relevant);
  const problems: ConfigProblem[] = [];
  if (!parsed.success) {
    // One problem per variable (its first), in the order of the variables.
    const seen = new Set<string>();
    for (const issue of parsed.error.issues) {
      const variable = String(issue.path[0] ?? 'environment');
      if (seen.has(variable)) continue;
      seen.add(variable);
      const got = issue.code === 'custom' ? (issue.params?.got as string | undefined) : undefined;
      problems.push(problemOf(variable, relevant[variable], got));
    }
  }
  // The data folder is looked at, never made, until every value is good.
  const dataDir = ConfigSchema.shape.PORTCULLIS_DATA_DIR.safeParse(relevant.PORTCULLIS_DATA_DIR);
  const folder = dataDir.success ? dataDirProblem(dataDir.data) : undefined;
  if (folder !== undefined) problems.push({ variable: 'PORTCULLIS_DATA_DIR', message: folder });
  problems.push(...toolOAuthProblems(environment));
  const [first, ...more] = problems;
  if (first !== undefined) throw ConfigError.of([first, ...more]);
  const values = parsed.data!;
  return {
    listenAddress: values.HOST,
    listenPort: values.PORT,
    dataDir: values.PORTCULLIS_DATA_DIR,
    databaseUrl: values.DATABASE_URL,
    redisUrl: values.REDIS_URL,
    masterKey: values.PORTCULLIS_MASTER_KEY
      ? Buffer.from(values.PORTCULLIS_MASTER_KEY, 'base64url')
      : undefined,
    devUpstreams: Object.fromEntries(
      (values.PORTCULLIS_DEV_UPSTREAMS?.split(',') ?? []).map((pair) => {
        const at = pair.indexOf('=');
        return [pair.slice(0, at), pair.slice(at + 1)];
      }),
    ),
    logLevel: values.PORTCULLIS_LOG_LEVEL,
    publicUrl: values.PORTCULLIS_PUBLIC_URL ? new URL(values.PORTCULLIS_PUBLIC_URL) : undefined,
    oauthRedirectUris: values.PORTCULLIS_OAUTH_REDIRECT_URIS?.split(',') ?? [],
    oauthDefaultScopes: defaultScopesOf(values.PORTCULLIS_OAUTH_DEFAULT_SCOPES),
    oauthStepUp: values.PORTCULLIS_OAUTH_STEP_UP,
    oauthSigningKeyPem: values.PORTCULLIS_OAUTH_SIGNING_KEY_PEM,
    corsOrigins: values.PORTCULLIS_CORS_ORIGINS?.split(',') ?? [],
    trustedProxies: values.PORTCULLIS_TRUSTED_PROXIES?.split(',') ?? [],
    allowPrivateNetworks:
      values.PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS === '1' ||
      values.PORTCULLIS_DEV_UPSTREAMS !== undefined,
    upstreamDeadlineMs: values.PORTCULLIS_UPSTREAM_DEADLINE_MS,
    rateLimits: {
      agent: ruleOf(
        values.PORTCULLIS_RATE_LIMIT_AGENT_PER_MINUTE,
        values.PORTCULLIS_RATE_LIMIT_AGENT_BURST,
      ),
      connection: ruleOf(
        values.PORTCULLIS_RATE_LIMIT_CONNECTION_PER_MINUTE,
        values.PORTCULLIS_RATE_LIMIT_CONNECTION_BURST,
      ),
      client: ruleOf(
        values.PORTCULLIS_RATE_LIMIT_CLIENT_PER_MINUTE,
        values.PORTCULLIS_RATE_LIMIT_CLIENT_BURST,
      ),
      admin: ruleOf(
        values.PORTCULLIS_RATE_LIMIT_ADMIN_PER_MINUTE,
        values.PORTCULLIS_RATE_LIMIT_ADMIN_BURST,
      ),
    },
    discoveryThreshold: values.PORTCULLIS_DISCOVERY_THRESHOLD,
    shutdownDeadlineMs: values.PORTCULLIS_SHUTDOWN_DEADLINE_MS,
    metricsPort: values.PORTCULLIS_METRICS_PORT,
    reviewFlagged: values.PORTCULLIS_REVIEW_FLAGGED,
    approvals: {
      ttlMs: values.PORTCULLIS_APPROVAL_TTL_S * 1000,
      waitMs: values.PORTCULLIS_APPROVAL_WAIT_MS,
      self: values.PORTCULLIS_APPROVAL_SELF,
      ...(values.PORTCULLIS_APPROVAL_WEBHOOK_URL && values.PORTCULLIS_APPROVAL_WEBHOOK_SECRET
        ? {
            webhook: {
              url: values.PORTCULLIS_APPROVAL_WEBHOOK_URL,
              secret: values.PORTCULLIS_APPROVAL_WEBHOOK_SECRET,
            },
          }
        : {}),
    },
    auditJournal:
      (values.PORTCULLIS_AUDIT_JOURNAL ?? (values.DATABASE_URL === undefined ? 'on' : 'off')) ===
      'on',
    toolOAuthClients: Object.fromEntries(
      Object.entries(environment).filter(
        (entry): entry is [string, string] =>
          entry[0].startsWith('PORTCULLIS_TOOL_OAUTH_') &&
          typeof entry[1] === 'string' &&
          entry[1] !== '',
      ),
    ),
    idpSecrets: Object.fromEntries(
      Object.entries(environment).filter(
        (entry): entry is [string, string] =>
          entry[0].startsWith(IDP_SECRET_PREFIX) && typeof entry[1] === 'string' && entry[1] !== '',
      ),
    ),
  };
}

/** A default rate limit: none at 0 calls a minute; the burst, unset, a minute's calls. */
function ruleOf(perMinute: number, burst: number | undefined): BucketRule | undefined {
  return perMinute === 0 ? undefined : { perMinute, burst: burst ?? perMinute };
}

/**
 * `expected <what it takes>, got "<value>"` (never a secret's value), with a
 * near valid word; `what` says what a secret is instead (`an RSA key of 1024 bits`).
 */
function problemOf(variable: string, value: string | undefined, what?: string): ConfigProblem {
  const accepts = ACCEPTS[variable as Variable];
  if (accepts === undefined) return { variable, message: 'is not valid' };
  const shown = accepts.secret || value === undefined ? '' : `, got ${JSON.stringify(value)}`;
  const got = what === undefined ? shown : `, got ${what}`;
  const near = accepts.words && value !== undefined ? didYouMean(value.trim(), accepts.words) : '';
  return { variable, message: `expected ${accepts.takes}${got}${near}` };
}

const TOOL_OAUTH = /^PORTCULLIS_TOOL_OAUTH_(?:([A-Z0-9_]+)_)?CLIENT_(ID|SECRET)$/;

/**
 * `PORTCULLIS_TOOL_OAUTH_[<CONNECTION>_]CLIENT_ID` / `_SECRET`: a name of
 * another shape, or a secret without its client id, would be ignored without
 * a word, so it is refused.
 */
function toolOAuthProblems(environment: Record<string, string | undefined>): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  for (const [variable, value] of Object.entries(environment)) {
    if (!variable.startsWith('PORTCULLIS_TOOL_OAUTH_') || value === undefined || value === '')
      continue;
    const match = TOOL_OAUTH.exec(variable);
    if (!match) {
      problems.push({
        variable,
        message:
          'expected a name PORTCULLIS_TOOL_OAUTH_[<CONNECTION>_]CLIENT_ID or _CLIENT_SECRET (the connection in upper case, - as _)',
      });
    } else if (match[2] === 'ID' && value.trim() === '') {
      problems.push({ variable, message: 'expected a client id, got a blank' });
    } else if (match[2] === 'SECRET' && !environment[variable.replace(/SECRET$/, 'ID')]?.trim()) {
      problems.push({
        variable,
        message: `expected beside ${variable.replace(/SECRET$/, 'ID')}, which is unset`,
      });
    }
  }
  return problems;
}

/** The words of a scope list written with spaces, commas, or both. */
function scopeWords(value: string): string[] {
  return value.split(/[\s,]+/).filter((word) => word !== '');
}

/** `PORTCULLIS_OAUTH_DEFAULT_SCOPES` as sorted scopes (validated already); unset, `tools:read`. */
function defaultScopesOf(value: string | undefined): string[] {
  const parsed = parseScope(scopeWords(value ?? DEFAULT_SCOPE).join(' '));
  return 'scopes' in parsed && parsed.scopes.length > 0 ? parsed.scopes : [DEFAULT_SCOPE];
}

/** A URL that parses and names a host. */
function isUrlWithHost(value: string): boolean {
  return URL.canParse(value) && new URL(value).hostname !== '';
}

const PROXY_WORDS = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** An address, a CIDR (address/prefix), or one of the named ranges. */
function isProxyAddress(value: string): boolean {
  if (PROXY_WORDS.has(value)) return true;
  const [address, prefix, extra] = value.split('/');
  const family = isIP(address ?? '');
  if (family === 0 || extra !== undefined) return false;
  if (prefix === undefined) return true;
  const bits = Number(prefix);
  return /^\d{1,3}$/.test(prefix) && bits <= (family === 4 ? 32 : 128);
}
