/**
 * The gateway's HTTP surface besides `/mcp`: `/healthz` and the operators'
 * `/admin/v1` API. Express only adapts; every decision is in `runtime/core`.
 */
import express from 'express';
import type { Log } from '../log.ts';
import type { Gateway } from '../open-gateway.ts';
import { adminRouter } from './admin-routes.ts';

/** Everything but `/mcp`, which `withMcpEndpoint` answers before Express sees it. */
export function createApp(gateway: Gateway, log: Log): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.get('/healthz', async (_req, res) => {
    try {
      await gateway.store.revision();
      res.json({ status: 'ok', providers: gateway.catalogs.providers.map((p) => p.id) });
    } catch {
      res.status(503).json({ status: 'unavailable', reason: 'store' });
    }
  });
  app.use('/admin/v1', adminRouter(gateway, log));
  return app;
}
