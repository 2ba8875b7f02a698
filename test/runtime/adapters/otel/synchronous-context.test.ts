/**
 * The SDK's context manager keeps the active context for the synchronous
 * call only; and with tracing on (sampled off, or every span sampled), a
 * real gateway answering governed calls turns on no promise hook (no
 * AsyncLocalStorage entered, by the SDK or by the core), while its upstream
 * still hears the trace.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { context, createContextKey, ROOT_CONTEXT } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SynchronousContextManager } from '../../../../runtime/adapters/otel/synchronous-context.ts';
import { ROOT } from '../../../support/fixtures.ts';
import { type OtlpReceiver, startOtlpReceiver } from '../../../support/otlp-receiver.ts';

const KEY = createContextKey('test key');
const one = ROOT_CONTEXT.setValue(KEY, 1);
const two = ROOT_CONTEXT.setValue(KEY, 2);

describe('SynchronousContextManager', () => {
  const manager = new SynchronousContextManager().enable();

  it.each([
    ['outside any with', () => manager.active(), ROOT_CONTEXT],
    ['inside with', () => manager.with(one, () => manager.active()), one],
    [
      'nested, the inner one',
      () => manager.with(one, () => manager.with(two, () => manager.active())),
      two,
    ],
    [
      'nested, the outer one again after the inner returns',
      () =>
        manager.with(one, () => {
          manager.with(two, () => {});
          return manager.active();
        }),
      one,
    ],
    [
      'after with returns',
      () => {
        manager.with(one, () => {});
        return manager.active();
      },
      ROOT_CONTEXT,
    ],
    [
      'after with throws',
      () => {
        try {
          manager.with(one, () => {
            throw new Error('thrown');
          });
        } catch {}
        return manager.active();
      },
      ROOT_CONTEXT,
    ],
    ['a bound function, called later', () => manager.bind(one, () => manager.active())(), one],
  ] as const)('%s', (_name, given, want) => {
    expect(given()).toBe(want);
  });

  it('passes this and the arguments on', () => {
    const target = { n: 2 };
    expect(
      manager.with(
        one,
        function (this: typeof target, a: number) {
          return this.n + a;
        },
        target,
        3,
      ),
    ).toBe(5);
  });

  it('does not carry the context across an await', async () => {
    const after = await manager.with(one, async () => {
      await null;
      return manager.active();
    });
    expect(after).toBe(ROOT_CONTEXT);
  });

  it('is not the API global in this file (the SDK registers it only in a traced process)', () => {
    expect(context.active()).toBe(ROOT_CONTEXT);
  });
});

interface Probe {
  hookAtStart: boolean;
  hookAfterCalls: boolean;
  traceparents: string[];
}

function probe(environment: Record<string, string>): Promise<Probe> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', join(ROOT, 'test', 'support', 'promise-hook-probe.ts')],
      { env: { ...process.env, ...environment }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk;
    });
    child.stderr.on('data', (chunk: Buffer) => {
      err += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const line = out.trim().split('\n').at(-1);
      if (code !== 0 || !line) reject(new Error(`probe exit ${code}: ${err.slice(-2000)}`));
      else resolve(JSON.parse(line) as Probe);
    });
  });
}

describe('a traced gateway', () => {
  let receiver: OtlpReceiver;
  beforeAll(async () => {
    receiver = await startOtlpReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
  });

  const traced = (sampler: Record<string, string>) => ({
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_BSP_SCHEDULE_DELAY: '50',
    ...sampler,
  });

  it.each([
    [
      'sampled off',
      { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0' },
      '00',
    ],
    ['fully sampled', { OTEL_TRACES_SAMPLER: 'always_on' }, '01'],
  ] as const)(
    '%s: turns on no promise hook, and the upstream hears the trace',
    async (_name, sampler, flags) => {
      const seen = await probe(traced(sampler));
      expect(seen.hookAtStart).toBe(false);
      expect(seen.hookAfterCalls).toBe(false);
      expect(seen.traceparents).toHaveLength(3);
      for (const traceparent of seen.traceparents)
        expect(traceparent).toMatch(new RegExp(`^00-[0-9a-f]{32}-[0-9a-f]{16}-${flags}$`));
    },
    120_000,
  );

  it('the probe sees an AsyncLocalStorage entered', async () => {
    const seen = await probe({
      ...traced({ OTEL_TRACES_SAMPLER: 'always_on' }),
      PROBE_CONTROL: '1',
    });
    expect(seen.hookAtStart).toBe(false);
    expect(seen.hookAfterCalls).toBe(true);
  }, 120_000);
});
