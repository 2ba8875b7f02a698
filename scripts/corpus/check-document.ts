/**
 * One corpus document through the compiler: load, compile with a plan nobody
 * curated, check tool names, and compile every emitted input schema with the
 * runtime's ajv. A `CompileError` is a verdict on the document; any other
 * exception is a crash, a bug in the compiler.
 */
import { readFile } from 'node:fs/promises';
import type {
  Classification,
  ClassificationRule,
  InventoryReason,
} from '../../generators/catalog/format.ts';
import { compileDocument } from '../../generators/compile/compile-document.ts';
import { planFromDocument } from '../../generators/compile/document-plan.ts';
import { ensureUniqueNames } from '../../generators/compile/ensure-definition.ts';
import { CompileError } from '../../generators/errors.ts';
import { loadDocument } from '../../generators/openapi/load-document.ts';
import { createValidator } from '../../generators/openapi/validate-document.ts';
import { createAjv } from '../../runtime/core/base/create-ajv.ts';
import { sampleCall } from './sample-call.ts';

/** Schema failures (and actions not callable) kept per document; the rest are only counted. */
const KEPT_FAILURES = 3;
/**
 * Schemas compiled by one ajv instance. Ajv keeps what each compiled schema
 * added to its code-generation scope even after `removeSchema`, so a
 * 22,000-action document needs several instances to stay in bounds.
 */
const SCHEMAS_PER_AJV = 500;

/** Where a document was when it failed; `worker` when the worker itself died. */
export type Stage = 'read' | 'load' | 'validate' | 'compile' | 'names' | 'ajv' | 'call' | 'worker';

export interface NotCallable {
  action: string;
  pointer: string;
  reason: string;
  message: string;
}

export interface SchemaFailure {
  action: string;
  pointer: string;
  message: string;
}

export interface DocumentCheck {
  /** The document's path under the corpus folder. */
  file: string;
  /** Set when the compiler refused the document with a `CompileError`. */
  rejected?: { stage: Stage; code: string; message: string };
  /** Set when something other than a `CompileError` was thrown. */
  crash?: { stage: Stage; stack: string };
  operations: number;
  actions: number;
  inventory: Partial<Record<InventoryReason, number>>;
  classification: Record<Classification, number>;
  /** Actions per classification rule. */
  rules: Partial<Record<ClassificationRule, number>>;
  /** Actions whose sampled arguments pass ajv and build a request. */
  callable: number;
  /** Reason → actions not callable for it. */
  notCallable: Record<string, number>;
  notCallableExamples: NotCallable[];
  /** The `tool_name_collision` message, when two operations share a name. */
  collision?: string;
  schemasCompiled: number;
  schemasFailed: number;
  schemaFailures: SchemaFailure[];
  /** Redocly errors, when the run validates documents. */
  structuralErrors?: number;
}

export interface CheckOptions {
  validate: boolean;
}

type Validate = Awaited<ReturnType<typeof createValidator>>;

/** A check of a document nothing has been counted for yet. */
export function emptyCheck(file: string): DocumentCheck {
  return {
    file,
    operations: 0,
    actions: 0,
    inventory: {},
    classification: { read: 0, write: 0, destructive: 0 },
    rules: {},
    callable: 0,
    notCallable: {},
    notCallableExamples: [],
    schemasCompiled: 0,
    schemasFailed: 0,
    schemaFailures: [],
  };
}

/** Returns a checker; the redocly configuration is resolved once, if asked for. */
export function createDocumentChecker(
  options: CheckOptions,
): (path: string, file: string) => Promise<DocumentCheck> {
  const validator: Promise<Validate> | undefined = options.validate ? createValidator() : undefined;
  return (path, file) => checkDocument(path, file, validator);
}

async function checkDocument(
  path: string,
  file: string,
  validator: Promise<Validate> | undefined,
): Promise<DocumentCheck> {
  const check = emptyCheck(file);
  let stage: Stage = 'read';
  try {
    const bytes = await readFile(path);
    stage = 'load';
    const document = loadDocument(bytes, file);
    if (validator) {
      stage = 'validate';
      const problems = await (await validator)(document);
      check.structuralErrors = problems.filter((p) => p.severity === 'error').length;
    }
    stage = 'compile';
    const compiled = compileDocument(document, planFromDocument(document, 'api', 'x_'));
    check.operations = compiled.operations;
    check.actions = compiled.actions.length;
    for (const entry of compiled.inventory)
      check.inventory[entry.reason] = (check.inventory[entry.reason] ?? 0) + 1;
    for (const action of compiled.actions) {
      check.classification[action.classification] += 1;
      const rule = action.classifiedBy.rule;
      check.rules[rule] = (check.rules[rule] ?? 0) + 1;
    }

    stage = 'names';
    const byName = [...compiled.actions].sort((a, b) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
    );
    try {
      ensureUniqueNames(byName, 'api');
    } catch (error) {
      if (!(error instanceof CompileError)) throw error;
      check.collision = error.message;
    }

    stage = 'ajv';
    const formats = [...compiled.annotationFormats].sort();
    let ajv = createAjv(formats);
    for (const [i, action] of compiled.actions.entries()) {
      if (i > 0 && i % SCHEMAS_PER_AJV === 0) ajv = createAjv(formats);
      try {
        const validate = ajv.compile(action.inputSchema);
        check.schemasCompiled += 1;
        stage = 'call';
        const outcome = sampleCall(action, validate);
        stage = 'ajv';
        if (outcome.callable) check.callable += 1;
        else {
          check.notCallable[outcome.reason] = (check.notCallable[outcome.reason] ?? 0) + 1;
          if (check.notCallableExamples.length < KEPT_FAILURES)
            check.notCallableExamples.push({
              action: action.name,
              pointer: action.pointer,
              reason: outcome.reason,
              message: outcome.message,
            });
        }
      } catch (error) {
        if (stage === 'call') throw error;
        check.schemasFailed += 1;
        if (check.schemaFailures.length < KEPT_FAILURES) {
          check.schemaFailures.push({
            action: action.name,
            pointer: action.pointer,
            message: error instanceof Error ? error.message : String(error),
          });
        }
      }
      // Two actions' schemas may carry the same `$id`; each is compiled on its own.
      ajv.removeSchema(action.inputSchema);
    }
  } catch (error) {
    if (error instanceof CompileError) {
      check.rejected = { stage, code: error.code, message: error.message };
    } else {
      check.crash = {
        stage,
        stack: error instanceof Error ? (error.stack ?? error.message) : String(error),
      };
    }
  }
  return check;
}
