/**
 * The master keys on disk when `PORTCULLIS_MASTER_KEY` is not set:
 * `<data dir>/master-keys.json`, readable only by its owner, holding the
 * current key and the previous ones a rotation still needs to open old
 * secrets. Written atomically (temporary file, then rename).
 */
import { chmodSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { generateMasterKey, Keyring, type MasterKey, masterKey } from './keyring.ts';

export const KEY_FILE = 'master-keys.json';

const KeyFileSchema = z.strictObject({
  current: z.string(),
  previous: z.array(z.string()).default([]),
});

export interface LoadedKeyring {
  keyring: Keyring;
  /** True when this call created the key file. */
  created: boolean;
  /** Where the keys live: the environment, or the key file's path. */
  source: string;
}

export function loadKeyring(dataDir: string, fromEnvironment: Buffer | undefined): LoadedKeyring {
  if (fromEnvironment) {
    return {
      keyring: new Keyring(masterKey(fromEnvironment)),
      created: false,
      source: 'PORTCULLIS_MASTER_KEY',
    };
  }
  const file = join(dataDir, KEY_FILE);
  const keyring = new Keyring(generateMasterKey());
  if (createKeyFile(file, keyring.current)) return { keyring, created: true, source: file };
  return { keyring: readKeyFile(file), created: false, source: file };
}

/** The keys as they are now (after a rotation by another process); never creates a key. */
export function reloadKeyring(dataDir: string, fromEnvironment: Buffer | undefined): Keyring {
  if (fromEnvironment) return new Keyring(masterKey(fromEnvironment));
  return readKeyFile(join(dataDir, KEY_FILE));
}

function readKeyFile(file: string): Keyring {
  const parsed = KeyFileSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
  const decode = (value: string) => masterKey(Buffer.from(value, 'base64url'));
  return new Keyring(decode(parsed.current), parsed.previous.map(decode));
}

/**
 * Creates the key file only if there is none (exclusive create), so a server
 * and a `portcullis` command starting together cannot each make their own key.
 */
function createKeyFile(file: string, key: MasterKey): boolean {
  try {
    writeFileSync(file, keyFileBody(key, []), { mode: 0o600, flag: 'wx' });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

/** A new current key, keeping the old ones for secrets not yet re-sealed. */
export function rotateKeyFile(dataDir: string, keyring: Keyring): Keyring {
  const next = generateMasterKey();
  writeKeyFile(join(dataDir, KEY_FILE), next, [keyring.current, ...keyring.previous]);
  return keyring.rotatedTo(next);
}

/** Drops the previous keys once nothing is sealed under them. */
export function forgetPreviousKeys(dataDir: string, keyring: Keyring): void {
  writeKeyFile(join(dataDir, KEY_FILE), keyring.current, []);
}

function keyFileBody(current: MasterKey, previous: readonly MasterKey[]): string {
  const body = {
    current: current.bytes.toString('base64url'),
    previous: previous.map((key) => key.bytes.toString('base64url')),
  };
  return `${JSON.stringify(body, null, 2)}\n`;
}

function writeKeyFile(file: string, current: MasterKey, previous: readonly MasterKey[]): void {
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, keyFileBody(current, previous), { mode: 0o600 });
  chmodSync(temporary, 0o600);
  renameSync(temporary, file);
}
