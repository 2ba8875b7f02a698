/**
 * `npm start`: the gateway on HOST:PORT, configured from the environment.
 * SIGTERM or SIGINT stops it gracefully (`RunningServer.close`) and it exits
 * 0; a second signal meanwhile exits at once, 128 + the signal's number.
 */

import { startTracing } from './adapters/otel/tracing-sdk.ts';
import { configFromEnvironment } from './config/config.ts';
import { ConfigError, configErrorText } from './config/config-error.ts';
import { inertText } from './core/base/inert-text.ts';
import { printStartup, startServer } from './server.ts';

async function main(): Promise<void> {
  const config = configFromEnvironment(process.env);
  // Before the first span: the SDK is loaded only when the OTEL_* variables ask for traces.
  const tracing = await startTracing(process.env);
  // One level below the project root, both as source (runtime/) and bundled (dist/).
  const running = await startServer(config, new URL('../generated/', import.meta.url), undefined, {
    consoleAssets: new URL('../dist/console/', import.meta.url),
  });
  printStartup(running);
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(128 + (signal === 'SIGINT' ? 2 : 15));
    stopping = true;
    running
      .close()
      .then(() => tracing?.shutdown())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          process.stderr.write(
            `portcullis: stopping failed: ${inertText(error instanceof Error ? error.message : String(error), { lines: true })}\n`,
          );
          process.exit(1);
        },
      );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    process.stderr.write(inertText(configErrorText(error), { lines: true }));
    process.exit(1);
  }
  const { code, variable } = error as { code?: string; variable?: string };
  process.stderr.write(
    `portcullis: ${inertText(error instanceof Error ? error.message : String(error), { lines: true })}\n`,
  );
  if (code) process.stderr.write(`  code: ${code}${variable ? ` (change ${variable})` : ''}\n`);
  process.exit(1);
});
