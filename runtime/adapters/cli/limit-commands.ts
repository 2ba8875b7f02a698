/**
 * The rate-limit commands: `limits set`, `limits list`, `limits clear`, over
 * the operator verbs of `core/operator/rate-limits.ts` (docs/rate-limits.md).
 */
import { GatewayError } from '../../core/base/errors.ts';
import {
  clearRateLimit,
  listRateLimits,
  type RateLimitView,
  setRateLimit,
} from '../../core/operator/rate-limits.ts';
import type { Command, CommandValues } from './command.ts';
import { printRows, printValue } from './output.ts';

const subjectOptions = {
  agent: { type: 'string' as const },
  connection: { type: 'string' as const },
};
const subjectFields = { agent: '--agent', connection: '--connection' };

export const limitCommands: Record<string, Command> = {
  'limits set': {
    usage:
      'limits set --agent <name>|--connection <name> --per-minute <n> [--burst <n>] [--workspace w]',
    summary:
      "set an agent's or a connection's calls a minute (and how many at once), over the configured default",
    options: {
      ...subjectOptions,
      'per-minute': { type: 'string' },
      burst: { type: 'string' },
    },
    fields: { ...subjectFields, perMinute: '--per-minute', burst: '--burst' },
    run: async ({ ctx, out, values, workspace }) => {
      const limit = await setRateLimit(ctx, {
        workspace,
        ...subjectOf(values),
        perMinute: figure(values['per-minute'], 'perMinute'),
        ...(values.burst === undefined ? {} : { burst: figure(values.burst, 'burst') }),
      });
      printValue(out, limit, `${limit.subject} ${limit.name}: ${terms(limit)}`);
    },
  },
  'limits list': {
    usage: 'limits list [--workspace w]',
    summary: 'list the rate limits set for agents and connections (the rest have the default)',
    run: async ({ ctx, out, workspace }) => {
      const rows = await listRateLimits(ctx, { workspace });
      printRows(
        out,
        rows.map((limit) => ({ ...limit })),
        ['subject', 'name', 'perMinute', 'burst', 'updatedAt'],
        rows,
      );
    },
  },
  'limits clear': {
    usage: 'limits clear --agent <name>|--connection <name> [--workspace w]',
    summary: "clear an agent's or a connection's rate limit: back to the configured default",
    options: subjectOptions,
    fields: subjectFields,
    run: async ({ ctx, out, values, workspace }) => {
      const subject = subjectOf(values);
      const { cleared } = await clearRateLimit(ctx, { workspace, ...subject });
      const named =
        'agent' in subject ? `agent ${subject.agent}` : `connection ${subject.connection}`;
      printValue(
        out,
        { cleared },
        cleared
          ? `cleared the rate limit of ${named}; the default applies`
          : `${named} had no rate limit of its own; nothing changed`,
      );
    },
  },
};

function terms(limit: RateLimitView): string {
  return `${limit.perMinute} calls a minute, ${limit.burst} at once`;
}

function subjectOf(values: CommandValues): { agent: string } | { connection: string } {
  const { agent, connection } = values;
  if (typeof agent === 'string' && connection === undefined) return { agent };
  if (typeof connection === 'string' && agent === undefined) return { connection };
  throw new GatewayError('invalid_input', 'name either --agent <name> or --connection <name>', {
    field: 'agent',
  });
}

/** A whole number flag (the verb refuses one out of bounds). */
function figure(value: CommandValues[string], field: 'perMinute' | 'burst'): number {
  if (typeof value !== 'string' || !/^\d{1,10}$/.test(value))
    throw new GatewayError('invalid_input', 'expected a whole number above 0', { field });
  return Number(value);
}
