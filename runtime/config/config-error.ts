/**
 * A start refused for its configuration (`config_invalid`): every problem
 * found, each naming the variable to change and what is wrong with it, so one
 * attempt shows them all. Never a secret's value.
 */

export interface ConfigProblem {
  /** The environment variable to change. */
  variable: string;
  /** What is wrong and what it takes, without the variable's name. */
  message: string;
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  readonly code = 'config_invalid';
  /** The (first) environment variable to change. */
  readonly variable: string;
  /** Every problem, in the order of the variables. */
  readonly problems: readonly ConfigProblem[];

  constructor(variable: string, message: string, more: readonly ConfigProblem[] = []) {
    const problems = [{ variable, message }, ...more];
    super(problems.map((problem) => `${problem.variable}: ${problem.message}`).join('\n'));
    this.variable = variable;
    this.problems = problems;
  }

  /** One error for every problem; the first leads. */
  static of(problems: readonly [ConfigProblem, ...ConfigProblem[]]): ConfigError {
    const [first, ...more] = problems;
    return new ConfigError(first.variable, first.message, more);
  }
}

/**
 * What a person reads: `portcullis: VAR: …` for each problem, then the code
 * and the variables to change.
 */
export function configErrorText(error: ConfigError): string {
  const lines = error.problems.map(
    (problem) => `portcullis: ${problem.variable}: ${problem.message}\n`,
  );
  const variables = [...new Set(error.problems.map((problem) => problem.variable))].join(', ');
  return `${lines.join('')}  code: ${error.code} (change ${variables})\n`;
}
