/** How a provider definition names an operation: `<document>:<operationId>`, or `<document>:<METHOD> <path>`. */
import type { CatalogAction } from '../catalog/format.ts';

/** How a definition names an operation: its id, or `METHOD /path`. */
export function operationKey(operation: {
  operationId: string | undefined;
  method: string;
  path: string;
}): string {
  return operation.operationId ?? `${operation.method.toUpperCase()} ${operation.path}`;
}

/** `<document>:<operation key>` → its parts. */
export function splitRef(ref: string): { document: string; key: string } {
  const colon = ref.indexOf(':');
  return { document: ref.slice(0, colon), key: ref.slice(colon + 1) };
}

/** The action a definition names as `<document>:<operation key>`. */
export function actionByRef(actions: CatalogAction[], ref: string): CatalogAction | undefined {
  const { document, key } = splitRef(ref);
  return actions.find(
    (a) =>
      a.document === document &&
      operationKey({
        operationId: a.operationId ?? undefined,
        method: a.request.method,
        path: a.request.path,
      }) === key,
  );
}
