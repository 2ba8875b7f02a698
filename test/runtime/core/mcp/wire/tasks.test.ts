/** Reading a task a peer sent: only the extension's fields, each of the shape it must have. */
import { describe, expect, it } from 'vitest';
import {
  declaresTasks,
  taskEnvelopeOf,
  taskStateOf,
} from '../../../../../runtime/core/mcp/wire/tasks.ts';

const AT = '2026-01-01T00:00:00Z';
const WORKING = {
  taskId: 't-1',
  status: 'working',
  createdAt: AT,
  lastUpdatedAt: AT,
  ttlMs: 60_000,
};

describe('a task a peer sent', () => {
  it('keeps the extension’s fields and nothing else', () => {
    expect(
      taskStateOf({
        ...WORKING,
        resultType: 'complete',
        pollIntervalMs: 500,
        statusMessage: 'busy',
        requestState: 'opaque',
        ttl: 60_000,
        pollInterval: 500,
        _meta: { 'io.modelcontextprotocol/related-task': { taskId: 't-1' } },
      }),
    ).toEqual({ ...WORKING, pollIntervalMs: 500, statusMessage: 'busy' });
    expect(taskEnvelopeOf({ ...WORKING, result: { content: [] } })).toEqual({
      resultType: 'task',
      ...WORKING,
    });
  });

  it.each<[string, Record<string, unknown>]>([
    ['no task id', { ...WORKING, taskId: '' }],
    ['a task id of another type', { ...WORKING, taskId: 7 }],
    ['a task id too long to be one', { ...WORKING, taskId: 'x'.repeat(2_000) }],
    ['an unknown status', { ...WORKING, status: 'sleeping' }],
    ['completed without a result', { ...WORKING, status: 'completed' }],
    ['failed without an error code', { ...WORKING, status: 'failed', error: { message: 'x' } }],
    ['asking without requests', { ...WORKING, status: 'input_required' }],
    [
      'asking what no client is asked',
      { ...WORKING, status: 'input_required', inputRequests: { a: { method: 'tools/call' } } },
    ],
  ])('is malformed with %s', (_, raw) => {
    expect(() => taskStateOf(raw)).toThrow(
      expect.objectContaining({ code: 'mcp_remote_malformed_response' }),
    );
  });

  it('says when, whatever the peer said, and no fractional or negative durations', () => {
    const state = taskStateOf({
      ...WORKING,
      createdAt: 'yesterday',
      ttlMs: 1.5,
      pollIntervalMs: -1,
    });
    expect(state.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(state.ttlMs).toBeNull();
    expect(state.pollIntervalMs).toBeUndefined();
  });

  it('cuts a status message and an error message short', () => {
    const state = taskStateOf({
      ...WORKING,
      status: 'failed',
      statusMessage: 'm'.repeat(5_000),
      error: { code: -32603, message: 'e'.repeat(5_000), data: { secret: 'kept out' } },
    });
    expect(state.statusMessage).toHaveLength(2_000);
    expect(state.error).toEqual({ code: -32603, message: 'e'.repeat(2_000) });
  });
});

describe('declaresTasks', () => {
  it.each<[unknown, boolean]>([
    [{ extensions: { 'io.modelcontextprotocol/tasks': {} } }, true],
    [{ extensions: { 'io.modelcontextprotocol/tasks': true } }, false],
    [{ tasks: {} }, false],
    [{}, false],
    [undefined, false],
  ])('%j: %s', (capabilities, want) => {
    expect(declaresTasks(capabilities)).toBe(want);
  });
});
