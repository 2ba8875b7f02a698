/**
 * The specification's names the gateway spells itself (so that a start need
 * not load the SDK) are the SDK's, every one.
 */
import * as sdk from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import * as names from '../../../../../runtime/core/mcp/wire/spec-names.ts';

describe("the specification's names", () => {
  it.each(Object.entries(names))('%s is the SDK’s', (name, value) => {
    expect(value).toEqual((sdk as Record<string, unknown>)[name]);
  });
});
