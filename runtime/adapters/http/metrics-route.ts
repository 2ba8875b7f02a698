/**
 * `/metrics` in the Prometheus text format on the gateway's port, to the
 * bearer of an admin token (the port of its own without authentication:
 * metrics-server.ts).
 */
import express from 'express';
import type { Gateway } from '../../compose/open-gateway.ts';
import { requireAdmin } from './admin-routes.ts';
import { METRICS_PATH } from './metrics-server.ts';

/** `GET /metrics` behind the admin token. */
export function metricsRouter(gateway: Gateway): express.Router {
  const router = express.Router();
  router.get(METRICS_PATH, requireAdmin(gateway), async (_req, res, next) => {
    try {
      const text = await gateway.metrics.text();
      res.set('Content-Type', gateway.metrics.contentType).send(text);
    } catch (error) {
      next(error);
    }
  });
  return router;
}
