/**
 * An input request in the shape each wire has it. A URL-mode elicitation
 * carries an `elicitationId` on 2025-11-25 (the server may later send
 * `notifications/elicitation/complete` with it) and none on 2026-07-28 (the
 * revision removed both: the retry tells the outcome). Whoever asked, a
 * backend or an upstream of either era, the agent gets its own wire's shape.
 */
import { randomUUID } from 'node:crypto';
import type { InputRequest } from '@modelcontextprotocol/server';

/** For a 2026-07-28 client: URL-mode elicitations without `elicitationId`. */
export function modernInputRequests(
  requests: Record<string, InputRequest>,
): Record<string, InputRequest> {
  const modern: Record<string, InputRequest> = {};
  for (const [key, request] of Object.entries(requests)) {
    const params = urlElicitationParams(request);
    if (params === undefined) {
      modern[key] = request;
      continue;
    }
    const { elicitationId: _, ...rest } = params;
    modern[key] = { ...request, params: rest } as InputRequest;
  }
  return modern;
}

/** For a 2025-11-25 client: URL-mode elicitations with an `elicitationId`, one minted where none came. */
export function legacyInputRequests(
  requests: Record<string, InputRequest>,
): Record<string, InputRequest> {
  const legacy: Record<string, InputRequest> = {};
  for (const [key, request] of Object.entries(requests)) {
    const params = urlElicitationParams(request);
    legacy[key] =
      params === undefined || typeof params.elicitationId === 'string'
        ? request
        : ({ ...request, params: { ...params, elicitationId: randomUUID() } } as InputRequest);
  }
  return legacy;
}

function urlElicitationParams(request: InputRequest): Record<string, unknown> | undefined {
  const params = request.params as Record<string, unknown> | undefined;
  return request.method === 'elicitation/create' && params?.mode === 'url' ? params : undefined;
}
