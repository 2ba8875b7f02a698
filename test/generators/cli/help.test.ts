/** Every compiler command answers --help on stdout with exit 0; a wrong flag stays a usage error that points at it. */
import { describe, expect, it } from 'vitest';
import { runCli } from '../../support/run-cli.ts';

const COMMANDS = ['generate', 'pin', 'diff', 'scaffold'];

describe.concurrent('compiler --help', () => {
  it.each(
    COMMANDS.flatMap((command) => [
      [command, '--help'],
      [command, '-h'],
    ]),
  )('%s %s prints its usage on stdout and exits 0', async (command, flag) => {
    const { code, stdout, stderr } = await runCli([command, flag]);
    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout).toMatch(new RegExp(`^usage: npm run ${command}\\b`));
    expect(stdout).toMatch(/-h, --help/);
  });

  it('--help without a command lists every command', async () => {
    const { code, stdout } = await runCli(['--help']);
    expect(code).toBe(0);
    for (const command of COMMANDS) expect(stdout).toContain(`npm run ${command}`);
  });

  it.each(COMMANDS)(
    '%s with an unknown flag is a usage error that points at --help',
    async (command) => {
      const { code, stdout, stderr } = await runCli([command, '--bogus']);
      expect(code).toBe(2);
      expect(stdout).toBe('');
      expect(stderr).toMatch(/^error\[usage\]/);
      expect(stderr).toContain(`npm run ${command} -- --help`);
    },
  );
});
