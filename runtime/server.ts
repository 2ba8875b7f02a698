/**
 * The gateway as an HTTP server: listen, open it, report what the start did.
 * The first start creates the default workspace, the master key file (unless
 * PORTCULLIS_MASTER_KEY is set) and an admin token, which it prints once. Its
 * configuration is checked whole before it is called, and it listens before
 * it opens the store, so a start that cannot listen (the port is taken, the
 * host does not resolve) fails before anything is made; the token is made
 * last of all (`openGateway`).
 */
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CorsPolicy, withCors } from './adapters/http/cors.ts';
import { Draining } from './adapters/http/draining.ts';
import { lazyListener } from './adapters/http/lazy-listener.ts';
import { withConnectionEndpoints, withMcpEndpoint } from './adapters/http/mcp-route.ts';
import { startMetricsServer } from './adapters/http/metrics-server.ts';
import { withProbes } from './adapters/http/probes.ts';
import { backingServicesText } from './compose/backing-services.ts';
import { createLog, type Log } from './compose/log.ts';
import { type Gateway, type OpenGatewayOptions, openGateway } from './compose/open-gateway.ts';
import type { Config } from './config/config.ts';
import { ConfigError } from './config/config-error.ts';
import { GatewayError, publicError } from './core/base/errors.ts';
import { CONNECTION_MCP_PREFIX } from './core/identity/oauth-server/metadata.ts';
import { createMcpEndpoint, type McpEndpoint } from './core/mcp/server/mcp-endpoint.ts';
import { LOOPBACK_HOSTS, LOOPBACK_ORIGINS } from './core/mcp/server/origin-guard.ts';
import { ConnectionEndpoints } from './core/pipeline/connection-endpoints.ts';
import { ConnectionTools } from './core/pipeline/connection-tools.ts';

export const VERSION = '0.1.0';

export interface RunningServer {
  gateway: Gateway;
  url: string;
  /**
   * The graceful stop: refuses new requests, lets those under way answer
   * (for `PORTCULLIS_SHUTDOWN_DEADLINE_MS` at most; then they are cut off
   * and their upstream requests fail), waits for every call's audit event,
   * ends the upstream sessions and closes the shared state and the store.
   */
  /** `/metrics` without authentication, when `PORTCULLIS_METRICS_PORT` is set. */
  metricsUrl: string | undefined;
  close(): Promise<void>;
}

/** Listens, then opens the gateway; the tests, the demo and the benchmark start it the same way. */
export async function startServer(
  config: Config,
  catalogs: OpenGatewayOptions['catalogs'],
  log: Log = createLog({ level: config.logLevel }),
  /** `consoleAssets`: the built console's folder (`dist/console/`), served at `/console`. */
  options: { consoleAssets?: URL } = {},
): Promise<RunningServer> {
  const server = createServer(starting);
  await listen(server, config);
  let gateway: Gateway;
  // The endpoints below (`/mcp` and every `/mcp/c/<connection>`) hold the sessions `/metrics`
  // counts; they are made once the gateway is open.
  const endpoints: Array<Pick<McpEndpoint, 'sessionCount'>> = [];
  try {
    gateway = await openGateway({
      config,
      catalogs,
      liveSessions: () => endpoints.reduce((sum, endpoint) => sum + endpoint.sessionCount, 0),
      listenUrl: urlOf(server, config).replace(/^http:\/\/(0\.0\.0\.0|\[::\])/, 'http://127.0.0.1'),
      onInternalError: (error, call) =>
        log.error({ err: error, ...call }, 'internal error in a governed call'),
    });
  } catch (error) {
    await new Promise((resolve) => server.close(resolve));
    throw error;
  }
  const cors = new CorsPolicy(config.corsOrigins);
  const mcp = createMcpEndpoint({
    backend: gateway.tools,
    requestState: gateway.requestState,
    state: gateway.state,
    onInternalError: (error) => log.error({ err: error }, 'internal error answering /mcp'),
    serverInfo: { name: 'portcullis', version: VERSION },
    resourceMetadataUrl: gateway.oauth.resourceMetadataUrl(),
    challengeScope: gateway.oauth.challengeScope,
    stepUp: config.oauthStepUp,
    ...allowedAddresses(config.publicUrl, cors.namedOrigins),
  });
  endpoints.push(mcp);
  // `/mcp` is answered straight from node:http (the hot path; Express costs
  // more per request than the whole MCP exchange); everything else by Express.
  server.off('request', starting);
  // `/mcp/c/<connection>`: one connection's tools under their own names, one endpoint each,
  // and the same for any name, real or made up (ConnectionEndpoints says why).
  const perConnection = new ConnectionEndpoints({
    make: (name) =>
      createMcpEndpoint({
        backend: new ConnectionTools(gateway.tools, name),
        requestState: gateway.requestState,
        state: gateway.state,
        onInternalError: (error) =>
          log.error({ err: error }, `internal error answering /mcp/c/${name}`),
        serverInfo: { name: 'portcullis', version: VERSION },
        resourceMetadataUrl: gateway.oauth.resourceMetadataUrl(`${CONNECTION_MCP_PREFIX}${name}`),
        challengeScope: gateway.oauth.challengeScope,
        stepUp: config.oauthStepUp,
        ...allowedAddresses(config.publicUrl, cors.namedOrigins),
      }),
    // From the governance snapshot, not the store: a request for a made-up name costs no read.
    isConnection: async (name) => (await gateway.governance.current()).hasConnectionNamed(name),
  });
  endpoints.push(perConnection);
  const report = (error: unknown) => log.error({ err: error }, 'internal error answering /mcp');
  const draining = new Draining(server);
  server.on(
    'request',
    draining.serve(
      withCors(
        cors,
        withMcpEndpoint(
          mcp,
          withConnectionEndpoints(
            (name) => perConnection.of(name),
            withProbes(
              gateway,
              log,
              // Express and the routes it serves load on the first request for them: a start
              // (and readiness) does not wait for them.
              lazyListener(
                async () => {
                  const { createApp } = await import('./adapters/http/app.ts');
                  return createApp(gateway, log, {
                    trustedProxies: config.trustedProxies,
                    consoleAssets: options.consoleAssets,
                  });
                },
                (error) => log.error({ err: error }, 'internal error loading the HTTP app'),
              ),
            ),
            { onInternalError: report },
          ),
        ),
      ),
    ),
  );
  const metricsServer =
    config.metricsPort === undefined
      ? undefined
      : await startMetricsServer(gateway, config.listenAddress, config.metricsPort, (error) =>
          log.error({ err: error }, 'internal error answering /metrics'),
        ).catch(async (error: unknown) => {
          await gateway.close();
          await new Promise((resolve) => server.close(resolve));
          throw error;
        });
  return {
    gateway,
    url: urlOf(server, config),
    metricsUrl: metricsServer?.url,
    async close() {
      const drained = draining.drain(config.shutdownDeadlineMs);
      // Their event streams end; a request still coming is refused.
      await metricsServer?.close();
      mcp.close();
      perConnection.close();
      gateway.stopHolding();
      const { inTime } = await drained;
      await gateway.close({ cancelCalls: !inTime });
    },
  };
}

/** Binds HOST:PORT; a failure is a `ConfigError` naming the variable to change. */
async function listen(server: Server, config: Config): Promise<void> {
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.listenPort, config.listenAddress, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    throw listenError(error, config);
  }
  server.keepAliveTimeout = 65_000;
}

function listenError(error: unknown, config: Config): unknown {
  const { listenPort: port, listenAddress: host } = config;
  switch ((error as NodeJS.ErrnoException).code) {
    case 'EADDRINUSE':
      return new ConfigError('PORT', `${port} is in use on ${host}; expected a free port (0: any)`);
    case 'EACCES':
      return new ConfigError(
        'PORT',
        `${port} needs privileges this user lacks; expected 1024 or above`,
      );
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new ConfigError(
        'HOST',
        `${host} does not resolve; expected an address or host name of this machine`,
      );
    case 'EADDRNOTAVAIL':
      return new ConfigError('HOST', `${host} is not an address of this machine`);
    default:
      return error;
  }
}

/** What a request gets while the gateway opens its store (a fraction of a second). */
const starting: RequestListener = (_req, res) => {
  res.writeHead(503, { 'Content-Type': 'application/json', 'Retry-After': '1' });
  res.end(
    JSON.stringify({
      error: publicError(
        new GatewayError('store_unavailable', 'the gateway is opening its store; try again'),
      ),
    }),
  );
};

/** Loopback always; the public address too when there is one, and the origins CORS names. */
function allowedAddresses(publicUrl: URL | undefined, corsOrigins: readonly string[]) {
  if (!publicUrl && corsOrigins.length === 0) return {};
  return {
    allowedHosts: [...LOOPBACK_HOSTS, ...(publicUrl ? [publicUrl.host] : [])],
    allowedOrigins: [...LOOPBACK_ORIGINS, ...(publicUrl ? [publicUrl.origin] : []), ...corsOrigins],
  };
}

/** The address the server listens on, as a URL (the issuer when there is no public URL). */
function urlOf(server: Server, config: Config): string {
  const { port } = server.address() as AddressInfo;
  const { listenAddress } = config;
  const authority = listenAddress.includes(':') ? `[${listenAddress}]` : listenAddress;
  return `http://${authority}:${port}`;
}

export function printStartup(running: RunningServer): void {
  const { startup, config } = running.gateway;
  const out = process.stdout;
  out.write(`portcullis ${VERSION} listening on ${running.url} (MCP at ${running.url}/mcp)\n`);
  for (const line of backingServicesText(config)) out.write(`${line}\n`);
  if (running.metricsUrl) out.write(`metrics without authentication at ${running.metricsUrl}\n`);
  if (startup.keyFileCreated)
    out.write(`created the master key file ${startup.keySource} (owner-only)\n`);
  if (startup.adminToken) {
    out.write(`\nadmin token (shown once; keep it): ${startup.adminToken}\n\n`);
  }
  for (const change of startup.contracts) {
    out.write(
      `connection ${change.connection}: ${change.added.length} new actions quarantined, ${change.changedContracts.length} changed contracts blocked until reviewed, ${change.retired.length} retired\n`,
    );
  }
  for (const [provider, origin] of Object.entries(config.devUpstreams)) {
    out.write(`DEVELOPMENT: ${provider} calls go to ${origin}, not to its published hosts\n`);
  }
  if (config.allowPrivateNetworks)
    out.write('DEVELOPMENT: outbound calls may reach loopback and private networks\n');
}
