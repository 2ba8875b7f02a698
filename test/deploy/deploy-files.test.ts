/**
 * The files in deploy/ cannot be run here (no image registry, no cluster),
 * so what can be checked is: every variable they set is one the
 * configuration knows, and their values are accepted (the Kubernetes
 * Secret's placeholders excepted, which a start refuses by name); the port
 * and the probe paths are the server's, asked of the bundle the Dockerfile
 * runs, built as its build stage builds it; the nginx configuration compose
 * mounts is the one the replica tests run; the build context keeps what the
 * Dockerfile copies.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, symlinkSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import yaml from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigSchema, configFromEnvironment } from '../../runtime/config/config.ts';
import { ConfigError } from '../../runtime/config/config-error.ts';
import { ROOT } from '../support/fixtures.ts';
import { NGINX_CONF } from '../support/nginx.ts';
import { startOtlpReceiver } from '../support/otlp-receiver.ts';
import { runServer, type ServerProcess } from '../support/run-server.ts';

const DEPLOY = join(ROOT, 'deploy');
const KNOWN = new Set(Object.keys(ConfigSchema.shape));
const scratch = mkdtempSync(join(tmpdir(), 'portcullis-deploy-'));

// biome-ignore lint/suspicious/noExplicitAny: YAML documents are read field by field and asserted on
type Yaml = any;
const read = (path: string) => readFileSync(join(DEPLOY, path), 'utf8');
const manifest = (file: string): Yaml => yaml.load(read(join('kubernetes', file)));
const compose: Yaml = yaml.load(read('compose.yaml'));
const dockerfile = read('Dockerfile');

/** The Dockerfile's `ENV a=1 \ b=2` of its last stage. */
function dockerfileEnv(): Record<string, string> {
  const runtime = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));
  const env: Record<string, string> = {};
  for (const block of runtime.matchAll(/^ENV ((?:[^\n]*\\\n)*[^\n]*)/gm)) {
    for (const [, name, value] of block[1]!.matchAll(/([A-Z_][A-Z0-9_]*)=(\S+)/g))
      env[name!] = value!;
  }
  return env;
}

/** Compose's `${NAME:-default}` and `${NAME:?message}`, as compose fills them in from `given`. */
function interpolate(value: string, given: Record<string, string>): string {
  return value.replace(/\$\{([A-Z0-9_]+)(?::([-?])([^}]*))?\}/g, (_all, name, kind, rest) => {
    if (given[name] !== undefined) return given[name];
    if (kind === '?') throw new Error(`${name} must be set: ${rest}`);
    return kind === '-' ? rest : '';
  });
}

const replicaServices = Object.entries(compose.services as Record<string, Yaml>).filter(
  ([, service]) => service.build?.dockerfile === 'deploy/Dockerfile',
);

function composeEnv(service: Yaml): Record<string, string> {
  const masterKey = Buffer.alloc(32, 7).toString('base64');
  return Object.fromEntries(
    Object.entries(service.environment as Record<string, string>).map(([name, value]) => [
      name,
      interpolate(String(value), { PORTCULLIS_MASTER_KEY: masterKey }),
    ]),
  );
}

const configMap: Yaml = manifest('configmap.yaml');
const secret: Yaml = manifest('secret.yaml');
const deployment: Yaml = manifest('deployment.yaml');
const container: Yaml = deployment.spec.template.spec.containers[0];
const kubernetesEnv: Record<string, string> = { ...configMap.data, ...secret.stringData };

describe('every variable the deploy files set', () => {
  it.each([
    ['the Dockerfile', () => dockerfileEnv()],
    ['compose', () => Object.assign({}, ...replicaServices.map(([, s]) => composeEnv(s)))],
    ['the Kubernetes ConfigMap and Secret', () => kubernetesEnv],
  ] as const)('is one the configuration knows, in %s', (_where, env) => {
    const names = Object.keys(env()).filter((name) => name !== 'NODE_ENV');
    expect(names.length).toBeGreaterThan(0);
    expect(names.filter((name) => !KNOWN.has(name))).toEqual([]);
  });

  it('has a value the configuration accepts in compose', () => {
    expect(replicaServices.map(([name]) => name)).toEqual(['portcullis-1', 'portcullis-2']);
    for (const [, service] of replicaServices) {
      const config = configFromEnvironment({
        ...dockerfileEnv(),
        ...composeEnv(service),
        PORTCULLIS_DATA_DIR: join(scratch, 'compose-data'),
      });
      expect(config.databaseUrl).toMatch(/^postgres:\/\/.*@postgres:5432\//);
      expect(config.redisUrl).toBe('redis://redis:6379');
    }
  });

  it("is accepted in Kubernetes but for the Secret's placeholders, which a start refuses by name", () => {
    let refused: unknown;
    try {
      configFromEnvironment({ ...kubernetesEnv, PORTCULLIS_DATA_DIR: join(scratch, 'k8s-data') });
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(ConfigError);
    expect((refused as ConfigError).problems.map((p) => p.variable).sort()).toEqual([
      'PORTCULLIS_MASTER_KEY',
      'PORTCULLIS_OAUTH_SIGNING_KEY_PEM',
    ]);
  });

  it('gives the Deployment both the ConfigMap and the Secret', () => {
    expect(container.envFrom).toEqual([
      { configMapRef: { name: configMap.metadata.name } },
      { secretRef: { name: secret.metadata.name } },
    ]);
  });
});

describe('the port and the probes', () => {
  const port = Number(dockerfileEnv().PORT);

  it('are one port everywhere: the image, compose, nginx and Kubernetes', () => {
    expect(port).toBe(8080);
    expect(dockerfile).toMatch(new RegExp(`^EXPOSE ${port}$`, 'm'));
    expect(Number(configMap.data.PORT)).toBe(port);
    expect(container.ports).toEqual([{ name: 'http', containerPort: port }]);
    for (const probe of ['livenessProbe', 'readinessProbe', 'startupProbe'])
      expect(container[probe].httpGet.port).toBe('http');
    expect(compose.services.nginx.environment.PORTCULLIS_REPLICAS).toBe(
      replicaServices.map(([name]) => `server ${name}:${port};`).join(' '),
    );
    for (const [, service] of replicaServices)
      expect(service.healthcheck.test.join(' ')).toContain(`http://127.0.0.1:${port}/`);
  });

  it('are liveness /healthz and readiness /readyz', () => {
    expect(container.livenessProbe.httpGet.path).toBe('/healthz');
    expect(container.readinessProbe.httpGet.path).toBe('/readyz');
    expect(container.startupProbe.httpGet.path).toBe('/readyz');
  });

  // Generous: a start on a busy machine.
  describe("answered 200 by the bundle the Dockerfile's CMD runs", { timeout: 180_000 }, () => {
    let server: ServerProcess;
    let repo: string;

    beforeAll(async () => {
      repo = join(scratch, 'repo');
      for (const entry of [
        'runtime',
        'generators',
        'generated',
        'scripts',
        'specs',
        'package.json',
      ])
        cpSync(join(ROOT, entry), join(repo, entry), { recursive: true });
      symlinkSync(join(ROOT, 'node_modules'), join(repo, 'node_modules'));
      // The build stage's `npm run build`.
      execFileSync('npm', ['run', 'build'], { cwd: repo, stdio: 'ignore' });
    }, 300_000);

    afterAll(async () => {
      await server?.stop();
    });

    it('finds the CMD file after npm run build', () => {
      const cmd = /^CMD \[(.*)\]$/m.exec(dockerfile)?.[1];
      const [program, file] = JSON.parse(`[${cmd}]`) as string[];
      expect(program).toBe('node');
      expect(existsSync(join(repo, file!))).toBe(true);
      // The runtime stage copies what the bundle reads: the compiled catalogs beside dist/.
      for (const copied of ['dist', 'generated', 'node_modules', 'package.json'])
        expect(dockerfile).toContain(`COPY --from=build /app/${copied} ./${copied}`);
    });

    it('imports no package the runtime stage prunes (a development dependency)', () => {
      const { dependencies } = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as {
        dependencies: Record<string, string>;
      };
      const imported = new Set<string>();
      const seen = new Set<string>();
      const visit = (file: string) => {
        if (seen.has(file)) return;
        seen.add(file);
        const code = readFileSync(file, 'utf8');
        // esbuild writes `import … from "x";` (minified: anywhere on a line, `import{a}from"x";`)
        // and `import("x")` for a lazy chunk.
        const specifiers = [
          ...code.matchAll(
            /(?<![\w$.])(?:import|export)\s*(?:[\w$*{},\s]+?\s*from\s*)?"([^"]+)";/g,
          ),
          ...code.matchAll(/\bimport\("([^"]+)"\)/g),
        ].map((match) => match[1]!);
        for (const specifier of specifiers) {
          if (specifier.startsWith('.')) visit(resolve(dirname(file), specifier));
          else if (!specifier.startsWith('node:') && !builtinModules.includes(specifier))
            imported.add(
              specifier
                .split('/')
                .slice(0, specifier.startsWith('@') ? 2 : 1)
                .join('/'),
            );
        }
      };
      visit(join(repo, 'dist', 'server.mjs'));
      // The drivers stay outside the bundle: seeing them proves the reading above reads it.
      expect([...imported]).toEqual(
        expect.arrayContaining(['pino', 'pg', 'better-sqlite3', 'ioredis']),
      );
      expect([...imported].filter((name) => dependencies[name] === undefined)).toEqual([]);
    });

    it('traces when the OTEL_* variables ask, exporting as protobuf and as JSON', async () => {
      // The bundle loads the SDK only when tracing is on: only a start with it on shows it loads.
      const receiver = await startOtlpReceiver();
      try {
        for (const protocol of ['http/protobuf', 'http/json']) {
          const traced = await runServer(
            {
              PORTCULLIS_DATA_DIR: join(scratch, `traced-${protocol.replace('/', '-')}`),
              PORTCULLIS_LOG_LEVEL: 'silent',
              OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
              OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: protocol,
              OTEL_BSP_SCHEDULE_DELAY: '50',
            },
            { entry: ['dist/server.mjs'], cwd: repo },
          );
          try {
            const exports = receiver.contentTypes().length;
            // A request without a key is refused, and traced all the same.
            const reply = await fetch(`${traced.url}/mcp`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', accept: 'application/json' },
              body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
            });
            expect(reply.status).toBe(401);
            await expect
              .poll(() => receiver.contentTypes().slice(exports), { timeout: 20_000 })
              .toContainEqual(
                protocol === 'http/json' ? 'application/json' : 'application/x-protobuf',
              );
          } finally {
            await traced.stop();
          }
        }
        expect(receiver.spans().map((span) => span.name)).toContain('mcp ping');
      } finally {
        await receiver.close();
      }
    });

    it('answers every probe path the deploy files name', async () => {
      server = await runServer(
        {
          PORTCULLIS_DATA_DIR: join(scratch, 'bundle-data'),
          PORTCULLIS_LOG_LEVEL: 'silent',
        },
        { entry: ['dist/server.mjs'], cwd: repo },
      );
      const paths = new Set<string>([
        container.livenessProbe.httpGet.path,
        container.readinessProbe.httpGet.path,
        ...[/HEALTHCHECK[\s\S]*?(\/[a-z]+z)'/.exec(dockerfile)?.[1]],
        ...replicaServices.map(([, s]) => /\/[a-z]+z/.exec(s.healthcheck.test.join(' '))?.[0]),
      ] as string[]);
      expect([...paths].sort()).toEqual(['/healthz', '/readyz']);
      for (const path of paths) expect((await fetch(`${server.url}${path}`)).status).toBe(200);
    });
  });
});

describe('the nginx configuration', () => {
  it('compose mounts is the one the replica tests run', () => {
    const [source, target] = String(compose.services.nginx.volumes[0]).split(':');
    expect(resolve(DEPLOY, source!)).toBe(NGINX_CONF);
    expect(target).toMatch(/^\/etc\/nginx\/templates\/.+\.template$/);
  });

  it('has every value it takes from compose, and no other', () => {
    const placeholders = [...readFileSync(NGINX_CONF, 'utf8').matchAll(/\$\{([A-Z0-9_]+)\}/g)];
    expect(new Set(placeholders.map((match) => match[1]))).toEqual(
      new Set(Object.keys(compose.services.nginx.environment)),
    );
  });

  it('passes event streams through unbuffered, on HTTP/1.1, with the forwarded headers', () => {
    const conf = readFileSync(NGINX_CONF, 'utf8');
    for (const directive of [
      'proxy_buffering off;',
      'proxy_http_version 1.1;',
      'proxy_read_timeout 1h;',
      'proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;',
      'proxy_set_header X-Forwarded-Proto $scheme;',
    ])
      expect(conf).toContain(directive);
  });
});

describe('the build context', () => {
  it('leaves out node_modules and dist, and keeps what the build stage copies', () => {
    const ignored = readFileSync(join(ROOT, '.dockerignore'), 'utf8')
      .split('\n')
      .filter((line) => line !== '' && !line.startsWith('#'));
    expect(ignored).toEqual(expect.arrayContaining(['node_modules', 'dist', '.git']));
    for (const needed of ['package.json', 'package-lock.json', 'runtime', 'generated', 'scripts'])
      expect(ignored).not.toContain(needed);
  });
});
