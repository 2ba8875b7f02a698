/**
 * The OpenAPI description of the upstream that the spec-driven servers are
 * given: one operation, GET /v1/users/quotas. Its `servers` entry is a
 * placeholder; each server is pointed at the live upstream by its own option.
 */
import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { WORK } from '../paths.ts';

const QUOTAS_SPEC = {
  openapi: '3.0.3',
  info: { title: 'Quotas', version: '1.0.0' },
  servers: [{ url: 'http://upstream.invalid' }],
  paths: {
    '/v1/users/quotas': {
      get: {
        operationId: 'getUserQuotas',
        summary: "Read the user's quotas",
        responses: {
          '200': {
            description: 'The quotas',
            content: { 'application/json': { schema: { type: 'object' } } },
          },
        },
      },
    },
  },
};

export interface WrittenSpec {
  path: string;
  sha256: string;
}

export async function writeQuotasSpec(): Promise<WrittenSpec> {
  const text = `${JSON.stringify(QUOTAS_SPEC, null, 2)}\n`;
  await mkdir(WORK, { recursive: true });
  const path = join(WORK, 'quotas.openapi.json');
  await writeFile(path, text);
  return { path, sha256: createHash('sha256').update(text).digest('hex') };
}
