/**
 * One upstream tool as Portcullis pins it: the parts an agent or the executor
 * relies on (name, title, description, input and output schema, annotations),
 * hashed with the catalog's own canonical JSON, so a changed description is a
 * changed contract exactly as a changed parameter is. A tool the server
 * describes badly (no name, no object input schema) is refused by name.
 */
import type { ToolAnnotations } from '../../../../generated/catalog-format.ts';
import { hashJson } from '../../../../generated/catalog-rules.ts';
import { isPlainObject } from '../../base/json-value.ts';
import type { RemoteToolContract } from '../../model/remote.ts';
import { toolAppOf } from './app-contract.ts';

/** MCP tool names (2025-11-25 `tools`: 1 to 128 of these characters). */
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;
const TEXT_MAX = 16_384;

const HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const;

/** The contract of a `tools/list` entry, or the reason it cannot be pinned. */
export function toolContractOf(value: unknown): RemoteToolContract | { problem: string } {
  if (!isPlainObject(value)) return { problem: 'a tools/list entry is not an object' };
  const { name, title, description, inputSchema, outputSchema, annotations, _meta } = value;
  if (typeof name !== 'string' || !TOOL_NAME.test(name))
    return {
      problem: `tool name ${JSON.stringify(String(name)).slice(0, 140)} is not a valid MCP tool name`,
    };
  if (
    !isPlainObject(inputSchema) ||
    (inputSchema.type !== undefined && inputSchema.type !== 'object')
  )
    return { problem: `tool ${name} has no object input schema` };
  const contract: RemoteToolContract = { name, inputSchema };
  if (typeof title === 'string') contract.title = title.slice(0, TEXT_MAX);
  if (typeof description === 'string') contract.description = description.slice(0, TEXT_MAX);
  if (isPlainObject(outputSchema)) contract.outputSchema = outputSchema;
  if (isPlainObject(annotations)) {
    const kept: Partial<ToolAnnotations> = {};
    if (typeof annotations.title === 'string') kept.title = annotations.title.slice(0, TEXT_MAX);
    for (const hint of HINTS)
      if (typeof annotations[hint] === 'boolean') kept[hint] = annotations[hint];
    if (Object.keys(kept).length > 0) contract.annotations = kept;
  }
  const ui = toolAppOf(_meta);
  if (ui) contract.ui = ui;
  return contract;
}

export function contractHashOf(contract: RemoteToolContract): string {
  return hashJson(contract);
}
