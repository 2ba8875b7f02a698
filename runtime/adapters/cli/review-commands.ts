/**
 * `portcullis connection review <connection>`: what waits for review on a
 * connection, as a reviewer reads it: each new or changed item with its class
 * and state, what changed since its review, its flags, and the command that
 * approves it (with `--force` where `PORTCULLIS_REVIEW_FLAGGED=block` holds
 * flagged items). It changes nothing.
 */
import { listActions } from '../../core/operator/actions.ts';
import type { Command } from './command.ts';
import { contractChangeLines } from './contract-change-text.ts';
import { inert, printRows, printText } from './output.ts';
import { appLines, flagLines } from './review-text.ts';

export const reviewCommands: Record<string, Command> = {
  'connection review': {
    usage: 'connection review <connection> [--workspace w]',
    summary:
      'show what waits for review on a connection: each new or changed item, what changed, and its review flags',
    fields: { connection: '<connection>' },
    run: async ({ ctx, out, args, workspace }) => {
      const connection = args[0] ?? '';
      const waiting = (await listActions(ctx, { workspace, connection })).filter(
        (a) => (a.review === 'new' || a.review === 'changed') && a.state !== 'disabled',
      );
      if (out.json) {
        printRows(out, [], [], waiting);
        return;
      }
      if (waiting.length === 0) {
        out.write(`Nothing waits for review on ${inert(connection)}.\n`);
        return;
      }
      const force = ctx.reviewFlagged === 'block' ? ' --force' : '';
      const blocks = waiting.map((a) => {
        const lines = [
          `${inert(a.name)} (${a.classification}, ${a.review === 'new' ? 'new' : 'contract changed'})${a.title !== a.action ? `: ${inert(a.title)}` : ''}`,
          ...(a.changes ? ['  changed since its review:', ...contractChangeLines(a.changes)] : []),
          ...(a.app ? ['  MCP App:', ...appLines(a.app)] : []),
          ...(a.flags ? [`  flagged (${a.flags.length}):`, ...flagLines(a.flags)] : []),
          `  approve: portcullis review ${inert(connection)} ${inert(a.name)}${a.flags ? force : ''}`,
        ];
        return `${lines.join('\n')}\n`;
      });
      const flagged = waiting.filter((a) => a.flags).length;
      printText(
        out,
        `${waiting.length} waiting for review on ${inert(connection)}, ${flagged} flagged${flagged > 0 && force ? ' (PORTCULLIS_REVIEW_FLAGGED=block: approving a flagged one takes --force)' : ''}.\n\n${blocks.join('\n')}`,
      );
    },
  },
};
