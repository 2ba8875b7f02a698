/** Where the gateway benchmark keeps what it installs, builds and logs (all under the gitignored .cache). */
import { join, resolve } from 'node:path';

export const ROOT = resolve(import.meta.dirname, '..', '..', '..');
/** Comparison tools installed with `npm install --prefix` (shared with bench:compile). */
export const SCRATCH = join(ROOT, '.cache', 'bench');
/**
 * Our own server children, bundled to plain Node, and their logs. Outside
 * SCRATCH on purpose: a bundle's bare imports must resolve to the project's
 * node_modules, not to the comparison tools' copies.
 */
export const WORK = join(ROOT, '.cache', 'bench-gateway');
export const LOGS = join(WORK, 'logs');
