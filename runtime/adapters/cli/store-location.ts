/**
 * Which store the `portcullis` command opens. The command never makes a
 * store by accident: only a store someone named (PORTCULLIS_DATA_DIR or
 * DATABASE_URL) or one that exists is opened. With neither variable set it
 * looks where the server keeps its store, `./data` of the folder it runs in,
 * then `./data` of the checkout the command belongs to (where `npm start`
 * keeps it, so an `npm link`ed command finds it from any folder); when
 * neither holds a store it refuses with `config_invalid` and a hint, and
 * creates nothing. The server's own first start creates `./data`.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { SQLITE_FILE } from '../../compose/open-stores.ts';
import { ConfigError } from '../../config/config-error.ts';

type Env = Record<string, string | undefined>;

export interface StorePlaces {
  /** The folder the command runs in. */
  cwd: string;
  /** The checkout the command belongs to. */
  checkout: string;
}

/** The environment with PORTCULLIS_DATA_DIR set to the store found, or as given when it names one. */
export function storeEnvironment(env: Env, places: StorePlaces): Env {
  if (env.DATABASE_URL?.trim() || env.PORTCULLIS_DATA_DIR?.trim()) return env;
  const candidates = [...new Set([resolve(places.cwd, 'data'), resolve(places.checkout, 'data')])];
  const found = candidates.find((dir) => existsSync(join(dir, SQLITE_FILE)));
  if (found !== undefined) return { ...env, PORTCULLIS_DATA_DIR: found };
  throw new ConfigError(
    'PORTCULLIS_DATA_DIR',
    `no Portcullis store in ${candidates.join(' or ')}, and the command makes none: start the server once (npm start) to create it, or set PORTCULLIS_DATA_DIR (or DATABASE_URL) to the store the server uses`,
  );
}
