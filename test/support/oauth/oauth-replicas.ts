/**
 * Authorization servers as replicas: OAuth gateways (oauth-gateway.ts) at
 * one public issuer on one PostgreSQL schema, with the jtis they took in
 * Redis or, without it, in the store.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type OAuthGateway, startOAuthGateway } from './oauth-gateway.ts';

/** The public issuer every replica names (`PORTCULLIS_PUBLIC_URL`). */
export const ISSUER = 'https://gateway.example.test';

/** A replica's variables: the issuer, private networks allowed, and Redis at `redisUrl` ('' for none). */
export function issuerEnvironment(redisUrl: string): Record<string, string> {
  return {
    PORTCULLIS_PUBLIC_URL: ISSUER,
    PORTCULLIS_DEV_ALLOW_PRIVATE_NETWORKS: '1',
    ...(redisUrl === '' ? {} : { REDIS_URL: redisUrl }),
  };
}

export interface OAuthReplicasOptions {
  /** The store all replicas share. */
  databaseUrl: string;
  /** The shared state's URL; '' for none (the store keeps the jtis). */
  redisUrl: string;
  /** The data folder's name prefix. */
  prefix: string;
}

/** Two replicas, started one after the other (the first migrates the store). */
export async function startOAuthReplicas(
  options: OAuthReplicasOptions,
): Promise<[OAuthGateway, OAuthGateway]> {
  const dataDir = mkdtempSync(join(tmpdir(), options.prefix));
  const { databaseUrl } = options;
  const environment = issuerEnvironment(options.redisUrl);
  const a = await startOAuthGateway({ dataDir, databaseUrl, environment });
  try {
    return [a, await startOAuthGateway({ dataDir, databaseUrl, environment })];
  } catch (error) {
    await a.close();
    throw error;
  }
}
