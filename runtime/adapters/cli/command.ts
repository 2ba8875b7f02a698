/**
 * What a `portcullis` command is: its usage, flags and the run it does with
 * the operator's context. The command tables (`commands.ts`,
 * `remote-commands.ts`, `oauth-commands.ts`) fill it in; `run.ts` finds and
 * runs one.
 */
import type { ParseArgsConfig } from 'node:util';
import type { Gateway } from '../../compose/open-gateway.ts';
import type { OperatorContext } from '../../core/operator/context.ts';
import type { Output } from './output.ts';

/** A command's flags, as `node:util` `parseArgs` takes them. */
export type CommandOptions = NonNullable<ParseArgsConfig['options']>;
/** A command's parsed flags by name. */
export type CommandValues = Record<string, string | boolean | string[] | undefined>;

/** What a command runs with: the operator's context, its parsed arguments and flags. */
export interface CommandRun {
  ctx: OperatorContext;
  gateway: Gateway;
  out: Output;
  args: string[];
  values: CommandValues;
  workspace: string;
  /** Where `--token-env VAR` and `--credential-env field=VAR` read secrets from. */
  env: Record<string, string | undefined>;
}

/** One `portcullis` command: its usage line, flags and what it runs. */
export interface Command {
  usage: string;
  summary: string;
  options?: CommandOptions;
  /**
   * The flag or argument that sets each input field the operator verb may
   * name in an error (`classification` → `--class`), so a message points at
   * what the person typed; `--workspace` is common to all.
   */
  fields?: Record<string, string>;
  /** A boolean flag that, given, makes the `<arguments>` unneeded (`import --help-prompt`). */
  argumentsOptionalWith?: string;
  /** A flag given in place of the first argument (`grant --member ada <connection>`). */
  firstArgumentFlag?: string;
  run(run: CommandRun): Promise<void>;
}
