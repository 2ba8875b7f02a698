/** Which declared capability a request to the client needs, down to the elicitation mode. */
import { describe, expect, it } from 'vitest';
import {
  isClientRequest,
  missingCapability,
} from '../../../../../runtime/core/mcp/wire/client-capability.ts';

const form = { method: 'elicitation/create', params: { mode: 'form', message: 'm' } };
const noMode = { method: 'elicitation/create', params: { message: 'm' } };
const url = {
  method: 'elicitation/create',
  params: { mode: 'url', url: 'https://x', message: 'm' },
};
const sampling = { method: 'sampling/createMessage', params: { messages: [], maxTokens: 1 } };
const withTools = { method: 'sampling/createMessage', params: { tools: [], maxTokens: 1 } };
const roots = { method: 'roots/list' };

describe('missingCapability', () => {
  it.each<
    [
      string,
      {
        declared: Record<string, unknown>;
        request: typeof form | typeof roots;
        want: string | undefined;
      },
    ]
  >([
    [
      'form mode, bare elicitation (form only)',
      { declared: { elicitation: {} }, request: form, want: undefined },
    ],
    [
      'no mode is form mode',
      { declared: { elicitation: { form: {} } }, request: noMode, want: undefined },
    ],
    [
      'URL mode, bare elicitation',
      { declared: { elicitation: {} }, request: url, want: 'elicitation.url' },
    ],
    [
      'URL mode, form declared',
      { declared: { elicitation: { form: {} } }, request: url, want: 'elicitation.url' },
    ],
    [
      'URL mode, url declared',
      { declared: { elicitation: { url: {} } }, request: url, want: undefined },
    ],
    [
      'form mode, url only',
      { declared: { elicitation: { url: {} } }, request: form, want: 'elicitation.form' },
    ],
    ['no elicitation at all', { declared: {}, request: form, want: 'elicitation' }],
    ['sampling', { declared: { sampling: {} }, request: sampling, want: undefined }],
    [
      'sampling with tools, tools undeclared',
      { declared: { sampling: {} }, request: withTools, want: 'sampling.tools' },
    ],
    [
      'sampling with tools, declared',
      { declared: { sampling: { tools: {} } }, request: withTools, want: undefined },
    ],
    ['roots undeclared', { declared: { sampling: {} }, request: roots, want: 'roots' }],
  ])('%s', (_name, { declared, request, want }) => {
    expect(missingCapability(declared, request)).toBe(want);
  });

  it('is a TypeError for a method no client capability covers', () => {
    expect(() => missingCapability({}, { method: 'tools/call' })).toThrow(TypeError);
    expect(isClientRequest('tools/call')).toBe(false);
    expect(isClientRequest('roots/list')).toBe(true);
  });
});
