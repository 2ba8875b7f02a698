/**
 * This deployment's Client ID Metadata Document, unauthenticated, at
 * `/connect/oauth/client-metadata.json` (beside the sign-in callback under
 * `/connect/oauth/`, apart from the authorization server's `/oauth/*` and
 * `/.well-known/*`). Only a deployment with a public https
 * `PORTCULLIS_PUBLIC_URL` has one; elsewhere the address is not found.
 */
import express, { type Router } from 'express';
import {
  CLIENT_METADATA_PATH,
  clientMetadataDocument,
} from '../../core/identity/oauth-client/upstream-oauth.ts';

export function clientMetadataRouter(publicUrl: URL | undefined): Router {
  const router = express.Router();
  const document = clientMetadataDocument(publicUrl);
  if (document === undefined) return router;
  const body = JSON.stringify(document);
  router.get(CLIENT_METADATA_PATH, (_req, res) => {
    res.status(200);
    res.setHeader('content-type', 'application/json');
    res.setHeader('cache-control', 'public, max-age=3600');
    res.send(body);
  });
  return router;
}
