/**
 * The compiler's one error model. A `CompileError` stops a run: nothing is
 * written. An `OperationError` leaves one operation out of the catalog, with
 * its reason recorded in the inventory.
 */
import type { InventoryReason } from './catalog/format.ts';

export type CompileErrorCode =
  | 'usage'
  | 'unknown_provider'
  | 'unknown_document'
  | 'invalid_definition'
  | 'pin_unresolvable'
  | 'pin_hash_mismatch'
  | 'document_unreadable'
  | 'unsupported_document'
  | 'tool_name_collision'
  | 'unknown_operation'
  | 'operation_not_compiled'
  | 'remote_endpoint_overlap'
  | 'generated_out_of_date';

/** Where a problem is: a file, a JSON pointer inside it, or a pin. */
export interface Place {
  file?: string;
  pointer?: string;
  line?: number;
  column?: number;
}

export class CompileError extends Error {
  override readonly name = 'CompileError';
  readonly code: CompileErrorCode;
  readonly place: Place;
  /** What to change to make the problem go away. */
  readonly fix: string;

  constructor(
    code: CompileErrorCode,
    message: string,
    options: { place?: Place; fix: string; cause?: unknown },
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.place = options.place ?? {};
    this.fix = options.fix;
  }
}

/** Why an operation is in the inventory instead of the catalog. A closed set. */
export type ExclusionReason = InventoryReason;

export class OperationError extends Error {
  override readonly name = 'OperationError';
  readonly reason: ExclusionReason;
  readonly pointer: string;

  constructor(reason: ExclusionReason, pointer: string, message: string) {
    super(message);
    this.reason = reason;
    this.pointer = pointer;
  }
}

/** One line for a person: where, what, and what to change. */
export function describeCompileError(error: CompileError): string {
  const { file, pointer, line, column } = error.place;
  const where = [
    file && (line ? `${file}:${line}${column ? `:${column}` : ''}` : file),
    pointer && `#${pointer}`,
  ]
    .filter(Boolean)
    .join(' ');
  return `error[${error.code}]${where ? ` ${where}` : ''}: ${error.message}\n  fix: ${error.fix}`;
}
