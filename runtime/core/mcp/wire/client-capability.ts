/**
 * Which declared client capability a server-to-client request needs, down
 * to the mode: an elicitation in URL mode needs `elicitation.url`, one in
 * form mode (or with no mode) `elicitation.form`, where a bare
 * `elicitation: {}` means form only (2025-11-25 "Capabilities"); sampling
 * with `tools` needs `sampling.tools`. Both ways of asking the agent, an
 * input request of 2026-07-28 and a request on a 2025 session's stream, ask
 * this one question.
 */
import type { ClientCapabilities } from '@modelcontextprotocol/server';
import { isPlainObject } from '../../base/json-value.ts';

const CAPABILITY_OF: Readonly<Record<string, keyof ClientCapabilities>> = {
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
};

/** Whether the agent can be asked `method` at all (whatever it declared). */
export function isClientRequest(method: string): boolean {
  return Object.hasOwn(CAPABILITY_OF, method);
}

/**
 * The capability `request` needs that `declared` lacks, as a path
 * (`elicitation.url`, `sampling.tools`, `roots`); undefined when declared.
 * Throws a TypeError for a method no client capability covers.
 */
export function missingCapability(
  declared: ClientCapabilities,
  request: { method: string; params?: unknown },
): string | undefined {
  const capability = CAPABILITY_OF[request.method];
  if (capability === undefined) throw new TypeError(`${request.method} is not a client request`);
  const given: unknown = declared[capability];
  if (!isPlainObject(given)) return capability;
  const params = isPlainObject(request.params) ? request.params : {};
  if (capability === 'elicitation') {
    const mode = params.mode === 'url' ? 'url' : 'form';
    const bare = given.form === undefined && given.url === undefined;
    const supported = mode === 'form' ? bare || given.form !== undefined : given.url !== undefined;
    return supported ? undefined : `elicitation.${mode}`;
  }
  if (capability === 'sampling' && params.tools !== undefined && given.tools === undefined)
    return 'sampling.tools';
  return undefined;
}
