// What a configuration directory needs mirrored: its `required_providers` (object and legacy
// string forms, .tf/.tofu and .tf.json/.tofu.json) and its `.terraform.lock.hcl` pins. Providers
// only implied by `provider` blocks or resource types are not mirrored; they get a note, as do
// built-in providers (terraform.io/builtin/terraform), which are part of OpenTofu.
import { promises as fs } from 'node:fs';
import { join } from 'node:path';
import { impliedProvider, isBuiltInProvider, parseProviderSource } from '../addresses';
import type { Block, Body, Expression } from '../config/ast';
import { parseHcl } from '../config/parser';
import { exhaustedMessage, FS_CONCURRENCY, isExhausted, mapLimit, readText, walkTree, withOpenFile } from '../fstree';
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
  const names = (await withOpenFile(() => fs.readdir(dir))).filter((n) => CONFIG_RE.test(n)).sort();
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
    locks = parseLockFile(await readText(join(dir, '.terraform.lock.hcl')));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') errors.push(`${join(dir, '.terraform.lock.hcl')}: ${(err as Error).message}`);
  }
  const requirements: ProviderRequirement[] = [...byAddr.values()].map((e) => ({
    address: e.address, constraints: [...new Set(e.constraints)], dir, locked: locks.get(e.address.address),
  }));
  return { requirements, notes, errors, builtIn: [...builtIn].sort() };
}

/** How many configuration directories a workspace walk collects by default (far above 10,000 root modules with a child each). */
export const DEFAULT_MAX_CONFIG_DIRS = 50_000;
/** How deep a workspace walk goes below each root. */
export const MAX_CONFIG_DEPTH = 12;

/** What a workspace walk found, and what it left out. */
export interface ConfigDirScan {
  /** Directories that contain configuration files, sorted (at most `maxDirs`). */
  dirs: string[];
  /** One message per root whose walk was cut short (the directory cap, or directories too deep); empty when complete. */
  warnings: string[];
  /** Some root had more configuration directories than the cap: `dirs` is incomplete. */
  truncated: boolean;
}

/**
 * The configuration directories under every root (skipping .terraform, .git, any other hidden
 * directory and node_modules; at most MAX_CONFIG_DEPTH levels deep), de-duplicated and sorted.
 * Past `maxDirs` directories found under one root its walk stops: what it left out is never
 * silent — each root cut short gets a message in `warnings` that names the cap and its setting.
 */
export async function scanConfigDirs(roots: readonly string[], opts: { maxDirs?: number } = {}): Promise<ConfigDirScan> {
  const limit = opts.maxDirs ?? DEFAULT_MAX_CONFIG_DIRS;
  const warnings: string[] = [];
  let truncated = false;
  const found = await Promise.all(roots.map(async (root) => {
    const out: string[] = [];
    let tooDeep = 0;
    await walkTree(root, {
      directory(dir, entries) {
        if (entries.some((e) => e.isFile() && CONFIG_RE.test(e.name))) out.push(dir);
      },
      descend: (name, depth) => {
        if (name.startsWith('.') || name === 'node_modules') return false;
        if (depth <= MAX_CONFIG_DEPTH) return true;
        tooDeep++;
        return false;
      },
      unreadable(dir, err) {
        // out of open files: fail, never a silently smaller workspace
        if (isExhausted(err)) throw new Error(exhaustedMessage(dir, err));
        // else skipped: e.g. a directory without read permission beside the configuration
      },
      // one past the cap: then it is known that something was left out
      done: () => out.length > limit,
    });
    out.sort();
    if (out.length > limit) {
      warnings.push(`${root}: stopped after ${limit} configuration directories (the limit set by --max-dirs / tofuRegistry.maxConfigDirs); directories past it were not read`);
      out.length = limit;
      truncated = true;
    }
    if (tooDeep) warnings.push(`${root}: ${tooDeep} director${tooDeep === 1 ? 'y' : 'ies'} more than ${MAX_CONFIG_DEPTH} levels deep not searched`);
    return out;
  }));
  return { dirs: [...new Set(found.flat())].sort(), warnings, truncated };
}

/**
 * scanConfigDirs for one root, without the warnings: for callers that report nothing. Prefer
 * scanConfigDirs wherever a cut-short walk can be shown to the user.
 */
export async function findConfigDirs(root: string, limit = DEFAULT_MAX_CONFIG_DIRS): Promise<string[]> {
  return (await scanConfigDirs([root], { maxDirs: limit })).dirs;
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
