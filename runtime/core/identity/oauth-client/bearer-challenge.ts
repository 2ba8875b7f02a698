/**
 * The upstream's `WWW-Authenticate` Bearer challenge (RFC 6750 §3, RFC 9728
 * §5.1): its `error`, `scope` and `resource_metadata`, and what a
 * `403 insufficient_scope` asks a new sign-in for (MCP's step-up: the union
 * of what was granted and what the challenge names, SEP-2350).
 */
import type { BearerChallenge, ParseBearerChallenge, StepUpScopes } from './engine-contract.ts';

const PARAM = /\s*([A-Za-z0-9_.-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,"]*))\s*(?:,|$)/y;

export const parseBearerChallenge: ParseBearerChallenge = (header) => {
  if (header === undefined || header.length > 8_192) return undefined;
  const start = /(?:^|,)\s*Bearer(?:\s+|$)/i.exec(header);
  if (!start) return undefined;
  const params = new Map<string, string>();
  PARAM.lastIndex = start.index + start[0].length;
  for (;;) {
    const at = PARAM.lastIndex;
    const match = PARAM.exec(header);
    if (!match || match[0] === '') break;
    const name = match[1]!.toLowerCase();
    // The next scheme's name (`, Basic realm=...`) ends this challenge.
    if (/^\s*[A-Za-z0-9_.-]+\s+[A-Za-z0-9_.-]+\s*=/.test(header.slice(at))) break;
    if (!params.has(name)) params.set(name, match[2]?.replace(/\\(.)/g, '$1') ?? match[3] ?? '');
  }
  const challenge: BearerChallenge = {};
  const error = params.get('error');
  if (error) challenge.error = error;
  const scope = params.get('scope');
  if (scope !== undefined) challenge.scope = scope.split(' ').filter((s) => s !== '');
  const hint = params.get('resource_metadata');
  if (hint) challenge.resourceMetadata = hint;
  return challenge;
};

export const stepUpScopes: StepUpScopes = (granted, challenge) => {
  if (challenge.error !== 'insufficient_scope' || challenge.scope === undefined) return undefined;
  const union = [...new Set([...granted, ...challenge.scope])];
  return union.length > new Set(granted).size ? union : undefined;
};
