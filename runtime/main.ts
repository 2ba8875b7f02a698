/** `npm start`: the gateway on HOST:PORT, configured from the environment. */

import { configFromEnvironment } from './config/config.ts';
import { ConfigError, configErrorText } from './config/config-error.ts';
import { inertText } from './core/base/inert-text.ts';
import { printStartup, startServer } from './server.ts';

async function main(): Promise<void> {
  const config = configFromEnvironment(process.env);
  // One level below the project root, both as source (runtime/) and bundled (dist/).
  const running = await startServer(config, new URL('../generated/', import.meta.url), undefined, {
    consoleAssets: new URL('../dist/console/', import.meta.url),
  });
  printStartup(running);
  const stop = () => {
    running.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
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
