/**
 * Structural validation with @redocly/openapi-core: every problem carries the
 * JSON pointer of its place. Problems are reported, not fatal: the compiler
 * leaves out only the operations it cannot compile.
 */
import type * as Redocly from '@redocly/openapi-core';
import { byCodeUnit } from '../code-unit-order.ts';
import { requireCommonJs } from '../require-commonjs.ts';
import type { OpenApiDocument } from './load-document.ts';

const { BaseResolver, createConfig, lintDocument, Source } = requireCommonJs(
  '@redocly/openapi-core',
) as typeof Redocly;

export interface Problem {
  severity: 'error' | 'warn';
  rule: string;
  pointer: string;
  message: string;
}

const RULES = {
  struct: 'error',
  'no-unresolved-refs': 'error',
  'operation-operationId-unique': 'error',
  'path-parameters-defined': 'warn',
  'no-undefined-server-variable': 'warn',
} as const;

/** Resolves the redocly configuration once; the returned function validates one document. */
export async function createValidator(): Promise<
  (document: OpenApiDocument) => Promise<Problem[]>
> {
  const config = await createConfig({ extends: [], rules: RULES });
  return async (document) => {
    const problems = await lintDocument({
      // The bytes were already parsed (as YAML 1.2); redocly works on that object.
      document: {
        source: new Source(document.file, '', 'application/json'),
        parsed: document.root,
      },
      config: config.styleguide,
      externalRefResolver: new BaseResolver(),
    });
    return problems
      .map((problem) => ({
        severity: problem.severity === 'error' ? ('error' as const) : ('warn' as const),
        rule: problem.ruleId,
        pointer: problem.location[0]?.pointer?.replace(/^#/, '') ?? '',
        message: problem.message,
      }))
      .sort((a, b) => byCodeUnit(a.pointer, b.pointer));
  };
}
