/**
 * The two slow, independent things done to each document besides compiling it:
 * structural validation (@redocly/openapi-core) and type emission
 * (openapi-typescript). The CLI runs them in a worker thread; tests call them here.
 */
import { createTypes } from './emit/types-dts.ts';
import type { OpenApiDocument } from './openapi/load-document.ts';
import { createValidator, type Problem } from './openapi/validate-document.ts';

export interface DocumentAnalysis {
  problems: Problem[];
  /** The document's `.d.ts`. */
  types: string;
}

export type AnalyzeDocument = (
  document: OpenApiDocument,
  banner: string[],
) => Promise<DocumentAnalysis>;

export function createAnalyzer(): AnalyzeDocument {
  const validator = createValidator();
  return async (document, banner) => ({
    problems: await (await validator)(document),
    types: await createTypes(document, banner),
  });
}
