/**
 * The gateway's HTTP surface besides `/mcp` and the probes (probes.ts): the
 * operators' `/admin/v1` API, `/metrics`, OAuth, sign-in and the console.
 * Express only adapts; every decision is in `runtime/core`. The server loads
 * this module on the first request it serves (`lazyListener`), not at start.
 */
import express from 'express';
import type { Log } from '../../compose/log.ts';
import type { Gateway } from '../../compose/open-gateway.ts';
import { GatewayError } from '../../core/base/errors.ts';
import { repeatsHost } from '../../core/mcp/server/repeated-host.ts';
import { adminRouter } from './admin-routes.ts';
import { clientMetadataRouter } from './client-metadata-route.ts';
import { consoleRouter } from './console-routes.ts';
import { errorReply, noSuchRoute, sendError } from './error-reply.ts';
import { idpRouter } from './idp-routes.ts';
import { metricsRouter } from './metrics-route.ts';
import { oauthRouter } from './oauth-routes.ts';
import { signInRouter } from './sign-in-routes.ts';

/** Everything but `/mcp` and the probes, which `withMcpEndpoint` and `withProbes` answer before Express sees them (the console at `/console` when its built folder is given). */
export function createApp(
  gateway: Gateway,
  log: Log,
  options: { trustedProxies?: readonly string[]; consoleAssets?: URL | undefined } = {},
): express.Express {
  const app = express();
  app.disable('x-powered-by');
  // proxy-addr (Express's own) reads X-Forwarded-For from these proxies only: req.ip is then the client's.
  if (options.trustedProxies?.length) app.set('trust proxy', [...options.trustedProxies]);
  app.set('etag', false);
  app.use((req, res, next) => {
    if (!repeatsHost(req.rawHeaders)) return next();
    sendError(res, new GatewayError('host_header_repeated', undefined, { field: 'Host' }));
  });
  app.use(metricsRouter(gateway));
  app.use('/admin/v1', adminRouter(gateway, log));
  app.use(clientMetadataRouter(gateway.config.publicUrl));
  app.use(oauthRouter(gateway.oauth));
  app.use(signInRouter(gateway));
  app.use(idpRouter(gateway));
  app.use('/console', consoleRouter(gateway, log, options.consoleAssets));
  app.use(noSuchRoute);
  app.use(errorReply(log, 'internal error answering an HTTP request'));
  return app;
}
