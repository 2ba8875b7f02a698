/**
 * Members' passwords, hashed with scrypt from node:crypto (memory-hard:
 * N = 2^15, r = 8, p = 1, 32 MiB per hash) and a random salt, stored as
 * `scrypt$<N>$<r>$<p>$<salt>$<hash>` so the cost can rise later without
 * breaking stored hashes. Comparisons take constant time.
 */
import { createHash, randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from 'node:crypto';

const COST = { N: 2 ** 15, r: 8, p: 1 } as const;
const KEY_BYTES = 32;
export const MIN_PASSWORD_LENGTH = 12;

function derive(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(
      password.normalize('NFKC'),
      salt,
      KEY_BYTES,
      { ...options, maxmem: 128 * (options.N ?? COST.N) * (options.r ?? COST.r) * 2 },
      (error, key) => (error ? reject(error) : resolve(key)),
    );
  });
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, COST);
  return [
    'scrypt',
    COST.N,
    COST.r,
    COST.p,
    salt.toString('base64url'),
    key.toString('base64url'),
  ].join('$');
}

/**
 * What a session remembers of the password it was opened with: a digest of
 * the stored hash (never the hash itself), which a new password (a new salt,
 * even for the same password) changes. A session whose stamp no longer
 * matches its member's was opened with a password that is no longer theirs.
 */
export function passwordStampOf(stored: string): string {
  return createHash('sha256').update(`portcullis-password-stamp:${stored}`).digest('base64url');
}

/** A hash no password matches: what sign-in checks against for an unknown name (same time spent). */
let decoy: Promise<string> | undefined;

/** Whether `password` is the one `stored` was made from; `undefined`: check against a decoy. */
export async function passwordMatches(
  password: string,
  stored: string | undefined,
): Promise<boolean> {
  decoy ??= hashPassword(randomBytes(32).toString('base64url'));
  const hash = stored ?? (await decoy);
  const [scheme, n, r, p, salt, key] = hash.split('$');
  if (scheme !== 'scrypt' || !n || !r || !p || salt === undefined || key === undefined)
    return false;
  const expected = Buffer.from(key, 'base64url');
  const actual = await derive(password, Buffer.from(salt, 'base64url'), {
    N: Number(n),
    r: Number(r),
    p: Number(p),
  });
  return timingSafeEqual(actual, expected) && stored !== undefined;
}

/** Why a new password is refused, naming what to change; undefined when it will do. */
export function passwordProblem(password: string): string | undefined {
  if ([...password].length < MIN_PASSWORD_LENGTH) {
    return `expected at least ${MIN_PASSWORD_LENGTH} characters`;
  }
  return undefined;
}
