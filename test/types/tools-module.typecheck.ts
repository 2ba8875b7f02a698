/**
 * Checked by `npm run typecheck`, not run: code that calls a generated action
 * by name type-checks its arguments. Each `@ts-expect-error` must stay an error,
 * or tsc fails on the unused directive.
 */
import { unikraft } from '../../generated/index.ts';

declare function call<N extends unikraft.ActionName>(
  name: N,
  args: unikraft.ActionArguments[N],
): void;

call('unikraft_get_instance_by_uuid', { path: { uuid: '0b6f' }, query: { details: false } });
call('unikraft_get_instances', { server: { metro: 'sin' }, body: [{ name: 'web' }] });
call('unikraft_sandbox_run_command', {
  server: { instance: 'box' },
  body: { cmd: 'ls', cwd: '/tmp' },
});

// @ts-expect-error the path argument is required
call('unikraft_get_instance_by_uuid', {});
// @ts-expect-error an unpublished metro
call('unikraft_get_instances', { server: { metro: 'nyc' }, body: [] });
// @ts-expect-error the sandbox instance is required
call('unikraft_sandbox_run_command', { server: { metro: 'fra' }, body: { cmd: 'ls' } });
// @ts-expect-error the command must be a string
call('unikraft_sandbox_run_command', { server: { instance: 'box' }, body: { cmd: 42 } });
// @ts-expect-error no such action
call('unikraft_launch_rockets', {});

export const runIsDestructive: 'destructive' = unikraft.classification.unikraft_sandbox_run_command;
export const getIsRead: 'read' = unikraft.classification.unikraft_get_instances;
