/** The sealed `requestState`: what it binds, when it expires, and how keys rotate. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  type RequestStateBinding,
  RequestStateSealer,
} from '../../../../../runtime/core/mcp/server/request-state.ts';
import { reasonOf } from '../../../../support/reason.ts';

const KEY_A = new Uint8Array(32).fill(1);
const KEY_B = new Uint8Array(32).fill(2);
const BINDING: RequestStateBinding = {
  principal: { agentId: 'agt_a', workspaceId: 'ws_1' },
  method: 'tools/call',
  name: 'ask',
  arguments: { b: 2, a: 1 },
};

async function refusalOf(promise: Promise<unknown>): Promise<string> {
  return (await reasonOf(promise)).code;
}

afterEach(() => {
  vi.useRealTimers();
});

describe('the request-state sealer', () => {
  const sealer = new RequestStateSealer({ keys: [KEY_A] });

  it('gives back the state it sealed, for the same binding (arguments in any order)', async () => {
    const sealed = await sealer.seal({ round: 2, name: 'Ada' }, BINDING);
    expect(await sealer.open(sealed, { ...BINDING, arguments: { a: 1, b: 2 } })).toEqual({
      round: 2,
      name: 'Ada',
    });
  });

  it.each<[string, Partial<RequestStateBinding>]>([
    ['another agent', { principal: { agentId: 'agt_b', workspaceId: 'ws_1' } }],
    ['another workspace', { principal: { agentId: 'agt_a', workspaceId: 'ws_2' } }],
    ['another method', { method: 'prompts/get' }],
    ['another tool', { name: 'other' }],
    ['other arguments', { arguments: { a: 1, b: 3 } }],
  ])('refuses a state presented by %s', async (_name, change) => {
    const sealed = await sealer.seal({ n: 1 }, BINDING);
    expect(await refusalOf(sealer.open(sealed, { ...BINDING, ...change }))).toBe(
      'request_state_invalid',
    );
  });

  it('refuses a state past its time', async () => {
    const short = new RequestStateSealer({ keys: [KEY_A], ttlSeconds: 60 });
    vi.useFakeTimers({ now: new Date('2026-12-01T10:00:00Z') });
    const sealed = await short.seal({ n: 1 }, BINDING);
    vi.setSystemTime(new Date('2026-12-01T10:02:00Z'));
    expect(await refusalOf(short.open(sealed, BINDING))).toBe('request_state_invalid');
  });

  it('refuses garbage and a state sealed under an unknown key', async () => {
    expect(await refusalOf(sealer.open('v1.garbage.x', BINDING))).toBe('request_state_invalid');
    const foreign = await new RequestStateSealer({ keys: [KEY_B] }).seal({ n: 1 }, BINDING);
    expect(await refusalOf(sealer.open(foreign, BINDING))).toBe('request_state_invalid');
  });

  it('opens a state sealed before a key rotation, and seals with the new key', async () => {
    const before = await new RequestStateSealer({ keys: [KEY_A] }).seal({ n: 1 }, BINDING);
    const rotated = RequestStateSealer.fromMasterKeys([KEY_B, KEY_A]);
    const oldOnly = RequestStateSealer.fromMasterKeys([KEY_A]);
    const derivedBefore = await oldOnly.seal({ n: 1 }, BINDING);
    expect(await rotated.open(derivedBefore, BINDING)).toEqual({ n: 1 });
    const after = await rotated.seal({ n: 2 }, BINDING);
    expect(await refusalOf(oldOnly.open(after, BINDING))).toBe('request_state_invalid');
    // Derived keys are not the master keys themselves.
    expect(await refusalOf(oldOnly.open(before, BINDING))).toBe('request_state_invalid');
  });
});
