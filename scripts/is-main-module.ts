/**
 * Whether the module at `moduleUrl` is the script Node was started with.
 * Node gives the main module its real path while `process.argv[1]` keeps the
 * one typed, so a script reached through a symbolic link (a worktree whose
 * `node_modules` links to another checkout's) is still recognised.
 */
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

export function isMainModule(moduleUrl: string): boolean {
  const started = process.argv[1];
  if (started === undefined) return false;
  try {
    return moduleUrl === pathToFileURL(realpathSync(started)).href;
  } catch {
    return false;
  }
}
