/**
 * `npm run mock`: Prism mocking a provider from its pinned documents (the
 * bytes checked against their sha256, YAML turned into JSON first, since
 * Prism refuses the `!!float` tag in Unikraft's platform document), one
 * Prism per document on consecutive ports, until Ctrl-C. It prints the
 * `PORTCULLIS_DEV_UPSTREAMS` value that sends the gateway's calls there.
 *
 *   npm run mock                      # unikraft: platform on 4010, sandbox on 4011
 *   npm run mock -- daytona --port 5000
 *   npm run mock -- --port 0          # any free ports
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT } from '../test/support/fixtures.ts';
import { type PrismServer, startPrism } from '../test/support/prism.ts';

const { values, positionals } = parseArgs({
  options: { port: { type: 'string', default: '4010' } },
  allowPositionals: true,
});
const provider = positionals[0] ?? 'unikraft';
const firstPort = Number(values.port);
if (!Number.isInteger(firstPort) || firstPort < 0 || firstPort > 65_535) {
  process.stderr.write(`mock: --port takes a port number from 0 to 65535, not ${values.port}\n`);
  process.exit(2);
}
let documents: string[];
try {
  documents = Object.keys(
    JSON.parse(await readFile(join(ROOT, 'specs', provider, 'pins.json'), 'utf8')) as object,
  );
} catch {
  process.stderr.write(`mock: no provider ${provider} (specs/${provider}/pins.json)\n`);
  process.exit(2);
}

const servers: PrismServer[] = [];
const stop = async () => {
  await Promise.all(servers.map((server) => server.stop()));
  process.exit(0);
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);

const upstreams: string[] = [];
for (const [index, document] of documents.entries()) {
  const server = await startPrism(provider, document, firstPort === 0 ? 0 : firstPort + index);
  servers.push(server);
  // The first document stands for the provider; the others are named.
  upstreams.push(`${index === 0 ? provider : `${provider}/${document}`}=${server.url}`);
  process.stdout.write(`Prism mocks ${provider}/${document} on ${server.url}\n`);
}
process.stdout.write(
  `\nexport PORTCULLIS_DEV_UPSTREAMS=${upstreams.join(',')}\n(Ctrl-C stops the mock)\n`,
);
