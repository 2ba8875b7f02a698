/**
 * The big CommonJS packages (ts-morph and openapi-typescript, each with a copy
 * of TypeScript inside or beside it, and redocly) are loaded through `require`:
 * importing them from an ES module makes Node scan each whole file for its
 * named exports first, which costs about as much as loading it.
 */
import { createRequire } from 'node:module';

export const requireCommonJs = createRequire(import.meta.url);
