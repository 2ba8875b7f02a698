/**
 * The one way tests read why something was refused: the stable `code` (and
 * the `field` to change) an attempt fails with, sync or async, and the reason
 * code a tool result carries. Tests assert codes, never message text.
 */
import { expect } from 'vitest';
import { GatewayError } from '../../runtime/core/base/errors.ts';

export interface Reason {
  code: string;
  field: string | undefined;
}

/**
 * The code and field of what `attempt` throws (a function) or rejects with (a
 * promise); fails the test when it succeeds, or fails without a code.
 */
export function reasonOf(attempt: () => unknown): Reason;
export function reasonOf(attempt: Promise<unknown>): Promise<Reason>;
export function reasonOf(attempt: (() => unknown) | Promise<unknown>): Reason | Promise<Reason> {
  if (typeof attempt !== 'function') {
    return attempt.then(
      () => succeeded(),
      (error: unknown) => reasonIn(error),
    );
  }
  let outcome: unknown;
  try {
    outcome = attempt();
  } catch (error) {
    return reasonIn(error);
  }
  expect(outcome, 'pass the promise itself, not a function returning one').not.toBeInstanceOf(
    Promise,
  );
  return succeeded();
}

/** The `GatewayError` a promise rejects with, for tests that read its detail; fails the test otherwise. */
export async function gatewayErrorOf(attempt: Promise<unknown>): Promise<GatewayError> {
  const error = await attempt.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(GatewayError);
  return error as GatewayError;
}

/** A tool result's reason code (`structuredContent.error.code`); undefined when it is no error. */
export function toolReasonOf(result: {
  isError?: boolean;
  structuredContent?: { error?: { code?: string } } | unknown;
}): string | undefined {
  if (!result.isError) return undefined;
  return (result.structuredContent as { error?: { code?: string } } | undefined)?.error?.code;
}

function reasonIn(error: unknown): Reason {
  const { code, field } = (error ?? {}) as { code?: unknown; field?: unknown };
  expect(typeof code, `expected a failure with a reason code, got ${String(error)}`).toBe('string');
  return { code: code as string, field: typeof field === 'string' ? field : undefined };
}

function succeeded(): never {
  expect.fail('expected the attempt to fail');
}
