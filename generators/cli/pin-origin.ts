/**
 * Where a pinned document lives upstream: the repository and path a pin names.
 * A first pin takes them from `--repo`/`--path`; a moved pin keeps its own unless
 * they are given. A local `--file` only supplies the bytes, never the origin.
 */
import { type Pin, PinSchema } from '../../specs/provider-definition.ts';
import { CompileError } from '../errors.ts';

export interface PinOriginOptions {
  repo?: string | undefined;
  path?: string | undefined;
}

/** The repo and path of the next pin of `provider/document`, or a usage error saying what to give. */
export function pinOriginOrThrow(
  provider: string,
  document: string,
  current: Pin | undefined,
  given: PinOriginOptions,
): Pick<Pin, 'repo' | 'path'> {
  const repo = given.repo ?? current?.repo;
  const path = given.path ?? current?.path;
  if (repo === undefined || path === undefined) {
    throw new CompileError(
      'usage',
      `"${provider}/${document}" has no pin yet, so nothing says where the document lives upstream`,
      {
        fix: `name its GitHub repository and path at that commit: npm run pin -- ${provider} ${document} --commit <sha> --repo <owner/name> --path <path/in/repo> [--file <local copy of that file>]`,
      },
    );
  }
  if (!PinSchema.shape.repo.safeParse(repo).success)
    throw new CompileError('usage', `--repo "${repo}" is not a GitHub repository`, {
      fix: 'write --repo <owner/name>',
    });
  if (!PinSchema.shape.path.safeParse(path).success)
    throw new CompileError('usage', '--path is empty', {
      fix: "write --path <the document's path inside the repository>",
    });
  return { repo, path };
}
