// What a configuration directory needs mirrored: its `required_providers` (object and legacy
// string forms, .tf/.tofu and .tf.json/.tofu.json) and its `.terraform.lock.hcl` pins. Providers
// only implied by `provider` blocks or resource types are not mirrored; they get a note, as do
// built-in providers (terraform.io/builtin/terraform), which are part of OpenTofu.
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { impliedProvider, isBuiltInProvider, parseProviderSource } from '../addresses';
import type { Block, Body, Expression } from '../config/ast';
import { parseHcl } from '../config/parser';
import { FS_CONCURRENCY, mapLimit, readText, walkTree } from '../fstree';
import { readLockFile } from '../lockfile/read';
import type { ProviderRequirement } from './run';
import { parseJsonBounded } from '../net/json-depth';

export interface DirRequirements {
  requirements: ProviderRequirement[];
  notes: string[];
  /** Problems reading the configuration (unreadable lock file, invalid source address…). */
  errors: string[];
  /** Built-in providers it requires (terraform.io/builtin/…): never mirrored. */
  builtIn: string[];
}

const CONFIG_RE = /\.(tf|tofu)(\.json)?$/;

/** Reads one configuration directory (not its subdirectories). */
export async function readDirRequirements(dir: string): Promise<DirRequirements> {
  const notes: string[] = [];
  const errors: string[] = [];
  const byAddr = new Map<string, { constraints: string[]; address: ReturnType<typeof parseProviderSource> }>();
  const implied = new Set<string>();
  const localNames = new Set<string>();
  const builtIn = new Set<string>();
  const names = (await fs.readdir(dir)).filter((n) => CONFIG_RE.test(n)).sort();
  const texts = await mapLimit(names, FS_CONCURRENCY, (name) => readText(join(dir, name)));
  for (const [i, name] of names.entries()) {
    const text = texts[i];
    const found = name.endsWith('.json') ? fromJson(text, name, errors) : fromHcl(text, implied);
    for (const r of found) {
      localNames.add(r.name);
      let address;
      try {
        address = r.source === undefined ? impliedProvider(r.name) : parseProviderSource(r.source);
      } catch (err) {
        errors.push(`${join(dir, name)}: provider "${r.name}": ${(err as Error).message}`);
        continue;
      }
      if (isBuiltInProvider(address)) {
        builtIn.add(address.address);
        continue;
      }
      const entry = byAddr.get(address.address) ?? { constraints: [], address };
      if (r.version) entry.constraints.push(r.version);
      byAddr.set(address.address, entry);
    }
  }
  if (builtIn.size) {
    notes.push(`${dir}: not mirrored (built into OpenTofu, never installed from a registry): ${[...builtIn].sort().join(', ')}`);
  }
  // "terraform" (terraform_remote_state) implies the built-in provider, which needs no note
  const skipped = [...implied].filter((n) => !localNames.has(n) && n !== 'terraform').sort();
  if (skipped.length) {
    notes.push(`${dir}: not mirrored (implied, not in required_providers): ${skipped.map((s) => `hashicorp/${s}`).join(', ')}`);
  }
  let locks = new Map<string, { version: string; hashes: string[] }>();
  try {
    locks = parseLockFile(await fs.readFile(join(dir, '.terraform.lock.hcl'), 'utf8'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') errors.push(`${join(dir, '.terraform.lock.hcl')}: ${(err as Error).message}`);
  }
  const requirements: ProviderRequirement[] = [...byAddr.values()].map((e) => ({
    address: e.address, constraints: [...new Set(e.constraints)], dir, locked: locks.get(e.address.address),
  }));
  return { requirements, notes, errors, builtIn: [...builtIn].sort() };
}

/**
 * Directories under `root` that contain configuration files (skipping .terraform, .git, any other
 * hidden directory and node_modules; at most 12 levels deep), sorted. Directories are read in
 * parallel; past `limit` found, the walk stops and the first `limit` in sorted order are returned.
 */
export async function findConfigDirs(root: string, limit = 2000): Promise<string[]> {
  const out: string[] = [];
  await walkTree(root, {
    directory(dir, entries) {
      if (entries.some((e) => e.isFile() && CONFIG_RE.test(e.name))) out.push(dir);
    },
    descend: (name, depth) => depth <= 12 && !name.startsWith('.') && name !== 'node_modules',
    unreadable() { /* skipped: e.g. a directory without read permission beside the configuration */ },
    done: () => out.length >= limit,
  });
  return out.sort().slice(0, limit);
}

interface RawRequirement { name: string; source?: string; version?: string }

function literal(e: Expression | undefined): string | undefined {
  return e && e.kind === 'literal' && typeof e.value === 'string' ? e.value : undefined;
}

function blocks(body: Body, type: string): Block[] {
  return body.items.filter((i): i is Block => i.kind === 'block' && i.type === type);
}

function fromHcl(text: string, implied: Set<string>): RawRequirement[] {
  const file = parseHcl(text);
  const out: RawRequirement[] = [];
  for (const tf of blocks(file.body, 'terraform')) {
    for (const rp of blocks(tf.body, 'required_providers')) {
      for (const item of rp.body.items) {
        if (item.kind !== 'attribute') continue;
        if (item.expr.kind === 'object') {
          const get = (k: string) => literal(item.expr.kind === 'object'
            ? item.expr.items.find((i) => (literal(i.key) ?? (i.key.kind === 'variable' ? i.key.name : undefined)) === k)?.value
            : undefined);
          out.push({ name: item.name, source: get('source'), version: get('version') });
        } else {
          out.push({ name: item.name, version: literal(item.expr) }); // legacy: name = "constraint"
        }
      }
    }
  }
  for (const b of file.body.items) {
    if (b.kind !== 'block') continue;
    if (b.type === 'provider' && b.labels[0]) implied.add(b.labels[0].value);
    if ((b.type === 'resource' || b.type === 'data') && b.labels[0]) implied.add(b.labels[0].value.split('_')[0]);
  }
  return out;
}

function fromJson(text: string, name: string, errors: string[]): RawRequirement[] {
  let doc: unknown;
  try { doc = parseJsonBounded(text); } catch (err) { errors.push(`${name}: ${(err as Error).message}`); return []; }
  const out: RawRequirement[] = [];
  const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : v && typeof v === 'object' ? [v] : []);
  for (const tf of list((doc as Record<string, unknown>)?.terraform)) {
    for (const rp of list((tf as Record<string, unknown>)?.required_providers)) {
      for (const [n, v] of Object.entries(rp as Record<string, unknown>)) {
        if (typeof v === 'string') out.push({ name: n, version: v });
        else if (v && typeof v === 'object') {
          const o = v as Record<string, unknown>;
          out.push({ name: n, source: typeof o.source === 'string' ? o.source : undefined, version: typeof o.version === 'string' ? o.version : undefined });
        }
      }
    }
  }
  return out;
}

/**
 * `.terraform.lock.hcl`: provider "HOST/NS/TYPE" { version = "…"  hashes = ["h1:…", "zh:…"] }.
 * Keys are normalized addresses; blocks without a version are left out. A thin view of
 * readLockFile (src/engine/lockfile), kept for callers that only need the pins.
 */
export function parseLockFile(text: string): Map<string, { version: string; hashes: string[] }> {
  const out = new Map<string, { version: string; hashes: string[] }>();
  for (const p of readLockFile(text).providers) {
    let address: string;
    try { address = parseProviderSource(p.address).address; } catch { continue; }
    if (p.version !== null && !out.has(address)) out.set(address, { version: p.version, hashes: p.hashes });
  }
  return out;
}
