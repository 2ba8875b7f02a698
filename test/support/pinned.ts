/** Runs the whole pipeline in this process against the spec mirror, the way `npm run generate` does. */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { biomeFormatter } from '../../generators/cli/biome-format.ts';
import { SpecStore } from '../../generators/cli/spec-store.ts';
import { createTypes } from '../../generators/emit/types-dts.ts';
import { type GeneratedTree, generate, type ProviderInput } from '../../generators/generate.ts';
import { providerDefinitions, remoteDefinitions } from '../../specs/index.ts';
import { MIRROR, ROOT } from './fixtures.ts';

export function pinnedProviders(): Record<string, ProviderInput> {
  return Object.fromEntries(
    Object.entries(providerDefinitions).map(([id, definition]) => [
      id,
      {
        definition,
        pins: JSON.parse(readFileSync(join(ROOT, 'specs', id, 'pins.json'), 'utf8')) as unknown,
      },
    ]),
  );
}

export function mirrorStore(mirror = MIRROR): SpecStore {
  return new SpecStore({
    mirror,
    cacheDir: mkdtempSync(join(tmpdir(), 'portcullis-cache-')),
    download: false,
  });
}

export function generateFromMirror(
  providers = pinnedProviders(),
  store = mirrorStore(),
  remotes: Record<string, unknown> = remoteDefinitions,
): Promise<GeneratedTree> {
  return generate({
    providers,
    remotes,
    readPin: (provider, document, pin) => store.read(provider, document, pin),
    formatSource: readFileSync(join(ROOT, 'generators', 'catalog', 'format.ts'), 'utf8'),
    rulesSource: readFileSync(join(ROOT, 'generators', 'catalog', 'rules.ts'), 'utf8'),
    createTypes,
    formatCode: biomeFormatter(ROOT),
  });
}
