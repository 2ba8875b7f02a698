/**
 * Where a pin's bytes come from, in order: the mirror folder
 * (`PORTCULLIS_SPEC_MIRROR`, found by sha256, or by repo + commit + path in its
 * SOURCES.json), the local cache, then a download of the raw file at the
 * pinned commit. The caller checks the hash; only verified bytes are cached.
 */
import { mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import type { Pin } from '../../specs/provider-definition.ts';
import { sha256Hex } from '../catalog/rules.ts';
import { CompileError } from '../errors.ts';

export interface SpecStoreOptions {
  mirror: string | undefined;
  cacheDir: string;
  /** Set to false to never touch the network. */
  download: boolean;
}

interface MirrorIndex {
  bySha256: Map<string, string>;
  /** `repo@commit:path` → file, from the mirror's SOURCES.json. */
  byPin: Map<string, string>;
}

const MAX_DOCUMENT_BYTES = 64 * 1024 * 1024;

export class SpecStore {
  readonly #options: SpecStoreOptions;
  #mirror: Promise<MirrorIndex> | undefined;

  constructor(options: SpecStoreOptions) {
    this.#options = options;
  }

  async read(provider: string, document: string, pin: Pin): Promise<Uint8Array> {
    const tried: string[] = [];
    const { mirror, cacheDir } = this.#options;
    if (mirror) {
      const index = await this.#mirrorIndex(mirror);
      const file = index.bySha256.get(pin.sha256) ?? index.byPin.get(pinKey(pin));
      if (file) return readFile(file);
      tried.push(`mirror ${mirror}: no file with that sha256 or pin`);
    } else {
      tried.push('mirror: PORTCULLIS_SPEC_MIRROR is not set');
    }
    const cached = join(cacheDir, pin.sha256);
    try {
      return await readFile(cached);
    } catch {
      tried.push(`cache ${cached}: not there`);
    }
    if (!this.#options.download) tried.push('download: turned off');
    else {
      const url = rawUrl(pin);
      try {
        const bytes = await download(url);
        if (sha256Hex(bytes) === pin.sha256) await this.remember(bytes);
        return bytes;
      } catch (error) {
        tried.push(`download ${url}: ${reasonOf(error)}`);
      }
    }
    throw new CompileError(
      'pin_unresolvable',
      `no bytes for pin ${provider}/${document} (sha256 ${pin.sha256}); tried ${tried.join('; ')}`,
      {
        place: { file: `specs/${provider}/pins.json`, pointer: `/${document}` },
        fix: 'point PORTCULLIS_SPEC_MIRROR at a folder holding the document (here: ../shared/specs), or allow the download',
      },
    );
  }

  /** Bytes found by repo + commit + path alone (for moving a pin), from the mirror or a download. */
  async readAtCommit(pin: Omit<Pin, 'sha256'>): Promise<Uint8Array> {
    const { mirror } = this.#options;
    if (mirror) {
      const file = (await this.#mirrorIndex(mirror)).byPin.get(pinKey(pin));
      if (file) return readFile(file);
    }
    if (!this.#options.download)
      throw new Error(`${pinKey(pin)} is not in the mirror and downloads are off`);
    return download(rawUrl(pin));
  }

  /** Keeps verified bytes in the cache under their sha256. */
  async remember(bytes: Uint8Array): Promise<void> {
    await mkdir(this.#options.cacheDir, { recursive: true });
    const target = join(this.#options.cacheDir, sha256Hex(bytes));
    const temporary = `${target}.${process.pid}.tmp`;
    await writeFile(temporary, bytes);
    await rename(temporary, target);
  }

  #mirrorIndex(folder: string): Promise<MirrorIndex> {
    this.#mirror ??= indexMirror(folder);
    return this.#mirror;
  }
}

async function indexMirror(folder: string): Promise<MirrorIndex> {
  const bySha256 = new Map<string, string>();
  const byPin = new Map<string, string>();
  const entries = await readdir(folder, { recursive: true, withFileTypes: true });
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const file = join(entry.parentPath, entry.name);
    if (relative(folder, file) === 'SOURCES.json') {
      for (const source of parseSources(await readFile(file, 'utf8')))
        byPin.set(pinKey(source), join(folder, source.file));
      continue;
    }
    bySha256.set(sha256Hex(await readFile(file)), file);
  }
  return { bySha256, byPin };
}

function parseSources(text: string): Array<Omit<Pin, 'sha256'> & { file: string }> {
  const parsed = JSON.parse(text) as { documents?: unknown };
  if (!Array.isArray(parsed.documents)) return [];
  return parsed.documents.filter(
    (d): d is Omit<Pin, 'sha256'> & { file: string } =>
      typeof d?.repo === 'string' &&
      typeof d.commit === 'string' &&
      typeof d.path === 'string' &&
      typeof d.file === 'string',
  );
}

function pinKey(pin: Omit<Pin, 'sha256'>): string {
  return `${pin.repo}@${pin.commit}:${pin.path}`;
}

function rawUrl(pin: Omit<Pin, 'sha256'>): string {
  const path = pin.path.split('/').map(encodeURIComponent).join('/');
  return `https://raw.githubusercontent.com/${pin.repo}/${pin.commit}/${path}`;
}

async function download(url: string): Promise<Uint8Array> {
  const response = await fetch(url, { redirect: 'error', signal: AbortSignal.timeout(30_000) });
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  const declared = Number(response.headers.get('content-length') ?? 0);
  if (declared > MAX_DOCUMENT_BYTES)
    throw new Error(`${declared} bytes is more than ${MAX_DOCUMENT_BYTES}`);
  const bytes = new Uint8Array(await response.arrayBuffer());
  if (bytes.byteLength > MAX_DOCUMENT_BYTES)
    throw new Error(`more than ${MAX_DOCUMENT_BYTES} bytes`);
  return bytes;
}

/** `fetch failed` says little; its cause (ENOTFOUND, ECONNREFUSED, a timeout) says why. */
function reasonOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause as { code?: unknown; message?: unknown } | undefined;
  const detail =
    typeof cause?.code === 'string'
      ? cause.code
      : typeof cause?.message === 'string'
        ? cause.message
        : undefined;
  return detail ? `${error.message} (${detail})` : error.message;
}
