/**
 * Bytes → an OpenAPI document object. JSON is parsed as JSON; anything else as
 * YAML 1.2 with the core schema (js-yaml), so `!!float 65535` resolves,
 * timestamps stay strings and nothing outside JSON's data model sneaks in.
 */
import jsyaml from 'js-yaml';
import { CompileError } from '../errors.ts';

export type OpenApiVersion = '3.0' | '3.1';

export interface OpenApiDocument {
  /** The file (or pin) the document came from, for error messages. */
  file: string;
  version: OpenApiVersion;
  root: Record<string, unknown>;
}

export function loadDocument(bytes: Uint8Array | string, file: string): OpenApiDocument {
  const text =
    typeof bytes === 'string'
      ? bytes
      : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  const root = parseText(text, file);
  if (root === null || typeof root !== 'object' || Array.isArray(root)) {
    throw new CompileError('document_unreadable', 'the document is not an object', {
      place: { file },
      fix: 'point the pin at an OpenAPI document (a JSON or YAML object)',
    });
  }
  return {
    file,
    version: versionOf(root as Record<string, unknown>, file),
    root: root as Record<string, unknown>,
  };
}

function parseText(text: string, file: string): unknown {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (/^\s*[{[]/.test(body)) {
    try {
      return JSON.parse(body);
    } catch {
      // Not JSON after all: YAML is a superset of JSON and reports a precise position.
    }
  }
  try {
    return jsyaml.load(body, { schema: jsyaml.CORE_SCHEMA, filename: file });
  } catch (cause) {
    const mark = cause instanceof jsyaml.YAMLException ? cause.mark : undefined;
    const detail = cause instanceof jsyaml.YAMLException ? cause.reason : String(cause);
    throw new CompileError('document_unreadable', `the document does not parse: ${detail}`, {
      place: { file, ...(mark ? { line: mark.line + 1, column: mark.column + 1 } : {}) },
      fix: 'fix the YAML or JSON syntax at that position, or pin a commit where the document parses',
      cause,
    });
  }
}

function versionOf(root: Record<string, unknown>, file: string): OpenApiVersion {
  const declared = root.openapi;
  if (typeof declared === 'string' && /^3\.0\.\d+/.test(declared)) return '3.0';
  if (typeof declared === 'string' && /^3\.1\.\d+/.test(declared)) return '3.1';
  const found =
    typeof root.swagger === 'string' ? `swagger ${root.swagger}` : `openapi ${String(declared)}`;
  throw new CompileError('unsupported_document', `expected OpenAPI 3.0 or 3.1, found ${found}`, {
    place: { file, pointer: root.swagger === undefined ? '/openapi' : '/swagger' },
    fix: 'convert the document to OpenAPI 3.x (for example with swagger2openapi) and pin the result',
  });
}
