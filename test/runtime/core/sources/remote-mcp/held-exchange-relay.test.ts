/**
 * The relay of answers to held questions, between two replicas on one shared
 * state: an answer reaches only the replica the record names, with what it
 * needs to check it (the connection); the holder's step or its typed error
 * comes back; a record that is gone, or names the asking replica itself, is
 * `mcp_remote_input_expired` without asking anyone; a holder that never
 * answers fails the answer with the same code; an agent that cancels cancels
 * the holder's round; the round's progress and log notifications come back
 * before its step, in order.
 */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { Cancellation, type CancelSignal } from '../../../../../runtime/core/base/cancellation.ts';
import { GatewayError } from '../../../../../runtime/core/base/errors.ts';
import { MemorySharedState } from '../../../../../runtime/core/ports/shared-state/memory-shared-state.ts';
import {
  HeldExchangeRelay,
  type RelayedAnswer,
  type Resume,
  type RoundNotices,
} from '../../../../../runtime/core/sources/remote-mcp/held-exchange-relay.ts';

type Step = { text: string };

let state: MemorySharedState;
let holder: HeldExchangeRelay<Step>;
let asker: HeldExchangeRelay<Step>;
const heard: RelayedAnswer[] = [];

/** Both replicas answer alike: a step naming the answer, for connection c1 only. */
const resume: Resume<Step> = async (answer) => {
  heard.push(answer);
  if (answer.connection !== 'c1') throw new GatewayError('mcp_remote_input_expired');
  return { text: `step for ${JSON.stringify(answer.answer)}` };
};

beforeEach(() => {
  state = new MemorySharedState();
  holder = new HeldExchangeRelay<Step>(state, { waitMs: 60_000, resume });
  asker = new HeldExchangeRelay<Step>(state, { waitMs: 60_000, resume });
  heard.length = 0;
});
afterEach(async () => {
  holder.close();
  asker.close();
  await state.close();
});

const answer = (connection = 'c1'): RelayedAnswer => ({
  exchange: 'x1',
  key: 'upstream_1',
  answer: { action: 'accept', content: { name: 'Eve' } },
  capabilities: { elicitation: {} },
  connection,
});
const never: CancelSignal = new Cancellation();
const unheard: RoundNotices = { progress: () => {}, log: () => {} };

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
    return undefined;
  } catch (error) {
    return error instanceof GatewayError ? error.code : String(error);
  }
}

it('brings the answer to the holder and its step back', async () => {
  await holder.held('x1', 60_000);
  expect(await asker.resume(answer(), never, unheard)).toEqual({
    text: 'step for {"action":"accept","content":{"name":"Eve"}}',
  });
  expect(heard).toEqual([answer()]);
});

it("gives back the holder's refusal with its code (another connection's answer)", async () => {
  await holder.held('x1', 60_000);
  expect(await codeOf(asker.resume(answer('c2'), never, unheard))).toBe('mcp_remote_input_expired');
  expect(heard.map((h) => h.connection)).toEqual(['c2']);
});

it('is expired at once, asking no one, when the record is gone or names the asker itself', async () => {
  expect(await codeOf(asker.resume(answer(), never, unheard))).toBe('mcp_remote_input_expired');
  await holder.held('x1', 60_000);
  holder.released('x1');
  expect(await state.get('held-exchange:x1')).toBeUndefined();
  expect(await codeOf(asker.resume(answer(), never, unheard))).toBe('mcp_remote_input_expired');
  await asker.held('x1', 60_000);
  expect(await codeOf(asker.resume(answer(), never, unheard))).toBe('mcp_remote_input_expired');
  expect(heard).toEqual([]);
});

it('fails as expired when the holder never answers (it went away)', async () => {
  const patient = new HeldExchangeRelay<Step>(state, { waitMs: 20 });
  await state.set('held-exchange:x1', 'a-replica-that-is-gone', 60_000);
  expect(await codeOf(patient.resume(answer(), never, unheard))).toBe('mcp_remote_input_expired');
  patient.close();
});

it("cancels the holder's round when the agent cancels", async () => {
  let roundCancelled = () => {};
  const cancelledThere = new Promise<void>((resolve) => {
    roundCancelled = resolve;
  });
  let started = () => {};
  const running = new Promise<void>((resolve) => {
    started = resolve;
  });
  const stuck = new HeldExchangeRelay<Step>(state, {
    waitMs: 60_000,
    resume: (_answer, cancel) =>
      new Promise<Step>(() => {
        started();
        cancel.onCancel(roundCancelled);
      }),
  });
  await stuck.held('x1', 60_000);
  const cancel = new Cancellation();
  const resumed = codeOf(asker.resume(answer(), cancel, unheard));
  await running;
  cancel.cancel();
  expect(await resumed).toBe('upstream_timeout');
  await cancelledThere;
  stuck.close();
});

it("brings the round's progress and log back to the asking call, in order, before the step", async () => {
  const relaying = new HeldExchangeRelay<Step>(state, {
    waitMs: 60_000,
    resume: async (_answer, _cancel, notices) => {
      notices.progress(1, 2, 'half way');
      notices.log('info', { said: 'hello' }, 'upstream');
      notices.progress(2);
      return { text: 'done' };
    },
  });
  await relaying.held('x1', 60_000);
  const heardHere: unknown[] = [];
  const step = await asker.resume(answer(), never, {
    progress: (...progress) => heardHere.push(['progress', ...progress]),
    log: (...log) => heardHere.push(['log', ...log]),
  });
  expect(step).toEqual({ text: 'done' });
  expect(heardHere).toEqual([
    ['progress', 1, 2, 'half way'],
    ['log', 'info', { said: 'hello' }, 'upstream'],
    ['progress', 2, undefined, undefined],
  ]);
  relaying.close();
});
