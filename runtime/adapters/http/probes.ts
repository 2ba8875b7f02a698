/**
 * The probes, answered straight from `node:http` so that a replica is ready
 * without loading Express (which the first other request loads: see
 * `lazyListener`): `/healthz` (liveness: the process serves; a backing service
 * that does not answer is readiness's to say, restarting the process would not
 * bring it back) and `/readyz` (readiness, checked live). GET and HEAD, the
 * path matched as Express matches a route (any case, a trailing slash allowed,
 * the query ignored); everything else, and a request with a repeated `Host`
 * line (which the app refuses), goes to `fallback`.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Log } from '../../compose/log.ts';
import type { Gateway } from '../../compose/open-gateway.ts';
import { publicError, statusOf } from '../../core/base/errors.ts';
import { repeatsHost } from '../../core/mcp/server/repeated-host.ts';
import { Readiness } from '../../core/pipeline/readiness.ts';

type Probe = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

export function withProbes(gateway: Gateway, log: Log, fallback: RequestListener): RequestListener {
  const providers = gateway.catalogs.providers.map((p) => p.id);
  const readiness = new Readiness({
    store: gateway.store,
    redis: gateway.config.redisUrl ? gateway.state : undefined,
    catalogs: providers,
    journal: gateway.auditJournal,
  });
  const probes: Record<string, Probe> = {
    '/healthz': async (req, res) => writeJson(req, res, 200, { status: 'ok', providers }),
    '/readyz': async (req, res) => {
      const result = await readiness.check();
      if (result.ready) return writeJson(req, res, 200, result.report);
      for (const { part, cause } of result.failed)
        log.warn({ err: cause, part }, 'not ready: a backing service does not answer');
      writeJson(req, res, statusOf(result.error), { error: publicError(result.error) });
    },
  };
  return (req, res) => {
    const probe =
      req.method === 'GET' || req.method === 'HEAD' ? probes[probePath(req.url)] : undefined;
    if (probe === undefined || repeatsHost(req.rawHeaders)) {
      fallback(req, res);
      return;
    }
    probe(req, res).catch((error: unknown) => {
      log.error({ err: error }, 'internal error answering a probe');
      if (res.headersSent) res.destroy();
      else writeJson(req, res, 500, { error: publicError(error) });
    });
  };
}

/** `/READYZ/?x` → `/readyz`: Express's route matching (case-insensitive, not strict). */
function probePath(url: string | undefined): string {
  const raw = url ?? '';
  const query = raw.indexOf('?');
  const path = (query < 0 ? raw : raw.slice(0, query)).toLowerCase();
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
}

function writeJson(req: IncomingMessage, res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
  });
  res.end(req.method === 'HEAD' ? undefined : text);
}
