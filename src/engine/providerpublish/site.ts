// The static registry site: a checked release merged into what OUT already holds, in the layout
// any static web server, object-storage bucket or CDN serves as a providers.v1 registry:
//   .well-known/terraform.json                      {"providers.v1":"/v1/providers/", …other services kept}
//   v1/providers/NS/TYPE/versions                   every version with its protocols and platforms
//   v1/providers/NS/TYPE/V/download/OS/ARCH         filename, download_url and shasums URLs relative to
//                                                   the document, shasum, signing_keys, packages (1.12)
//   v1/providers/NS/TYPE/V/<zips>, _SHA256SUMS, _SHA256SUMS.sig
// Only the discovery document needs a content type (application/json, which static servers send for
// .json); tofu reads the others whatever their type. Every check runs before the first write; files
// are written atomically (temp + rename), packages first and documents last, each only when it
// differs; a version already published with other content is refused unless `force`.
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { OutputDir, readJsonObject, writeFileAtomic } from '../fstree/outdir';
import { insideRoot, safeFilename, safeName } from '../fstree/safe-paths';
import { sha256File } from '../providerpkg/hash';
import { compareVersions, parseVersion } from '../versions/version';
import { ProviderPublishError, Release } from './release';
import { PublishKeys, releaseSignature } from './signing';

export const PROVIDERS_V1 = '/v1/providers/';
export const DISCOVERY_FILE = '.well-known/terraform.json';

export interface SiteReport {
  site: string;
  /** Files written, relative to the site (forward slashes), in the order written. */
  written: string[];
  unchanged: string[];
  /** Files of the version taken off the site (only with force: the version had other platforms). */
  removed: string[];
}

type Planned = { rel: string; bytes: Buffer } | { rel: string; source: string; sha256: string };

/** Publishes `release` into the site at `out`. Throws ProviderPublishError when a check fails (nothing written). */
export async function publishToSite(opts: { out: string; release: Release; keys: PublishKeys; force?: boolean; signal?: AbortSignal }): Promise<SiteReport> {
  const out = resolve(opts.out);
  const { release, signal } = opts;
  const a = release.address;
  const providerRel = ['v1', 'providers', safeName('namespace', a.namespace), safeName('type', a.type)].join('/');
  const versionRel = `${providerRel}/${release.version}`;
  const abs = (rel: string) => insideRoot(out, ...rel.split('/'));
  // the signature is settled before OUT is touched (even created): a refusal leaves no trace
  const sumsRel = `${versionRel}/${safeFilename(release.sums.filename)}`;
  const sigRel = `${sumsRel}.sig`;
  const publishedSums = await fs.readFile(abs(sumsRel)).catch(() => undefined);
  const publishedSig = publishedSums?.equals(release.sums.bytes) ? await fs.readFile(abs(sigRel)).catch(() => undefined) : undefined;
  const signature = await releaseSignature(release, opts.keys, publishedSig);
  const dir = await OutputDir.open(out);
  try {

    const packages: Planned[] = release.packages.map((p) => ({ rel: `${versionRel}/${safeFilename(p.filename)}`, source: p.path, sha256: p.sha256 }));
    const files: Planned[] = [...packages, { rel: sumsRel, bytes: release.sums.bytes }, { rel: sigRel, bytes: signature }];
    const documents: Planned[] = release.packages.map((p) => ({ rel: `${versionRel}/download/${p.os}/${p.arch}`, bytes: jsonBytes(downloadDocument(release, p.platform, opts.keys)) }));

    const written: string[] = [];
    const unchanged: string[] = [];
    const conflicts: string[] = [];
    const pending: Planned[] = [];
    for (const f of [...files, ...documents]) {
      signal?.throwIfAborted();
      const state = await compare(abs(f.rel), f);
      if (state === 'same') unchanged.push(f.rel);
      else pending.push(f);
      if (state === 'differs') conflicts.push(f.rel);
    }
    const planned = new Set([...files, ...documents].map((f) => f.rel));
    const stale = (await listFiles(abs(versionRel))).map((p) => `${versionRel}/${relative(abs(versionRel), p).split(sep).join('/')}`)
      .filter((rel) => !planned.has(rel) && !isTemp(rel)).sort();
    conflicts.push(...stale);

    // versions: this version's entry added (or, with force, replaced); the others kept as they are
    const versionsRel = `${providerRel}/versions`;
    const versionsDoc = await readDoc(abs(versionsRel));
    const list = versionList(versionsDoc, versionsRel);
    const entry = { version: release.version, protocols: release.protocols, platforms: release.packages.map((p) => ({ os: p.os, arch: p.arch })) };
    const at = list.findIndex((v) => (v as { version?: unknown }).version === release.version);
    let versionsChange = false;
    if (at < 0) { list.push(entry); versionsChange = true; } else if (!isDeepStrictEqual(list[at], entry)) { list[at] = entry; versionsChange = true; conflicts.push(`${versionsRel} (its entry for ${release.version})`); }
    list.sort(byVersion);

    // discovery: providers.v1 beside whatever else the host announces (modules.v1, login.v1, …)
    const discovery = (await readDoc(abs(DISCOVERY_FILE))) ?? {};
    const announced = discovery['providers.v1'];
    const discoveryChange = announced !== PROVIDERS_V1;
    if (announced !== undefined && announced !== PROVIDERS_V1) {
      if (!opts.force) throw new ProviderPublishError(`${join(out, DISCOVERY_FILE)} already announces providers.v1 = ${JSON.stringify(announced)}, not this site's ${PROVIDERS_V1}; nothing was written (--force replaces it)`);
    }
    discovery['providers.v1'] = PROVIDERS_V1;

    if (conflicts.length && !opts.force) {
      throw new ProviderPublishError(`${a.address} ${release.version} is already published in ${out} with other content (${conflicts.slice(0, 6).join(', ')}${conflicts.length > 6 ? ', …' : ''}); a published version must not change under the lock files that record its hashes — publish a new version, or pass --force to replace it (nothing was written)`);
    }

    // writes: packages and signed sums, then the documents that point at them, discovery last
    for (const f of pending) {
      signal?.throwIfAborted();
      await dir.prepareDir(dirname(abs(f.rel)));
      if ('source' in f) await copyAtomic(f.source, abs(f.rel));
      else await writeBytesAtomic(abs(f.rel), f.bytes);
      written.push(f.rel);
    }
    const removed: string[] = [];
    for (const rel of opts.force ? stale : []) {
      await fs.rm(abs(rel), { force: true });
      removed.push(rel);
    }
    if (versionsChange) {
      await writeFileAtomic(abs(versionsRel), jsonText({ ...versionsDoc, versions: list }));
      written.push(versionsRel);
    } else unchanged.push(versionsRel);
    if (discoveryChange) {
      await dir.prepareDir(dirname(abs(DISCOVERY_FILE)));
      await writeFileAtomic(abs(DISCOVERY_FILE), jsonText(discovery));
      written.push(DISCOVERY_FILE);
    } else unchanged.push(DISCOVERY_FILE);
    return { site: out, written, unchanged, removed };
  } finally {
    await dir.close();
  }
}

/** The providers.v1 download answer for one platform: URLs relative to the document (…/V/download/OS/ARCH). */
export function downloadDocument(release: Release, platform: string, keys: PublishKeys): Record<string, unknown> {
  const p = release.packages.find((x) => x.platform === platform)!;
  const up = (name: string) => `../../${encodeURIComponent(name)}`;
  return {
    protocols: release.protocols,
    os: p.os,
    arch: p.arch,
    filename: p.filename,
    download_url: up(p.filename),
    shasums_url: up(release.sums.filename),
    shasums_signature_url: up(`${release.sums.filename}.sig`),
    shasum: p.sha256,
    signing_keys: { gpg_public_keys: keys.keys.map((k) => ({ key_id: k.keyId, ascii_armor: k.asciiArmor })) },
    // OpenTofu 1.12 (rfc/20251027-provider-registry-hashes.md): every platform's hashes, so a lock
    // for all platforms needs no package download; zh: is the signed SHA256SUMS line.
    packages: Object.fromEntries(release.packages.map((x) => [x.platform, { hashes: [x.h1, x.zh], package_size: x.size }])),
  };
}

function jsonText(doc: unknown): string {
  return JSON.stringify(doc, null, 2) + '\n';
}

function jsonBytes(doc: unknown): Buffer {
  return Buffer.from(jsonText(doc));
}

/** A file as it is in the site: missing, the same (bytes, or the same JSON for documents), or different. */
async function compare(file: string, f: Planned): Promise<'missing' | 'same' | 'differs'> {
  const st = await fs.stat(file).catch(() => undefined);
  if (!st) return 'missing';
  if (!st.isFile()) return 'differs';
  if ('source' in f) return (await sha256File(file)).sha256 === f.sha256 ? 'same' : 'differs';
  const bytes = await fs.readFile(file);
  if (bytes.equals(f.bytes)) return 'same';
  if (!f.rel.includes('/download/')) return 'differs';
  try { return isDeepStrictEqual(JSON.parse(bytes.toString('utf8')), JSON.parse(f.bytes.toString('utf8'))) ? 'same' : 'differs'; } catch { return 'differs'; }
}

async function readDoc(file: string): Promise<Record<string, unknown> | undefined> {
  try {
    return await readJsonObject(file);
  } catch (err) {
    throw new ProviderPublishError((err as Error).message);
  }
}

function versionList(doc: Record<string, unknown> | undefined, rel: string): unknown[] {
  if (!doc) return [];
  const list = doc.versions;
  if (!Array.isArray(list) || !list.every((v) => v && typeof v === 'object' && typeof (v as { version?: unknown }).version === 'string')) {
    throw new ProviderPublishError(`${rel} is not a providers.v1 versions document ({"versions":[{"version":…}]}); fix or remove it — published versions are never dropped silently (nothing was written)`);
  }
  return list;
}

/** Oldest first by version precedence; unparseable ones after, in text order. */
function byVersion(a: unknown, b: unknown): number {
  const [s, t] = [(a as { version: string }).version, (b as { version: string }).version];
  const x = parseVersion(s, 'provider');
  const y = parseVersion(t, 'provider');
  if (typeof x !== 'string' && typeof y !== 'string') return compareVersions(x, y) || (s < t ? -1 : s > t ? 1 : 0);
  if (typeof x !== 'string') return -1;
  if (typeof y !== 'string') return 1;
  return s < t ? -1 : s > t ? 1 : 0;
}

async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await fs.readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...await listFiles(p));
    else out.push(p);
  }
  return out;
}

function isTemp(rel: string): boolean {
  const name = rel.slice(rel.lastIndexOf('/') + 1);
  return name.startsWith('.') && (name.endsWith('.part') || name.endsWith('.tmp'));
}

function tempBeside(file: string, ext: string): string {
  return join(dirname(file), `.${file.split(/[\\/]/).pop()}.${randomBytes(6).toString('hex')}.${ext}`);
}

/** Copies through a temp file beside `dest` and a rename: readers see the old file or the new, never half. */
async function copyAtomic(source: string, dest: string): Promise<void> {
  const tmp = tempBeside(dest, 'part');
  try {
    await fs.copyFile(source, tmp, fs.constants.COPYFILE_EXCL);
    await fs.chmod(tmp, 0o644);
    await fs.rename(tmp, dest);
  } catch (err) {
    await fs.rm(tmp, { force: true });
    throw err;
  }
}

async function writeBytesAtomic(dest: string, bytes: Buffer): Promise<void> {
  const tmp = tempBeside(dest, 'tmp');
  try {
    await fs.writeFile(tmp, bytes, { flag: 'wx', mode: 0o644 });
    await fs.rename(tmp, dest);
  } catch (err) {
    await fs.rm(tmp, { force: true });
    throw err;
  }
}
