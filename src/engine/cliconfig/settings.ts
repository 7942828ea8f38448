// The non-credential parts of OpenTofu's CLI configuration that air-gapped setups rely on
// (internal/command/cliconfig in opentofu/opentofu):
//   host "example.com" { services = { "modules.v1" = "https://…/" } }   → instead of discovery
//   provider_installation { network_mirror { url = "…" include = […] exclude = […] }
//                           filesystem_mirror { path = "…" … }  direct { … } }
// HCL native syntax is read with the project's parser (src/engine/config); a file whose first
// non-blank character is "{" is JSON, as HCL 1 (which OpenTofu uses for this file) decides.
import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { tryNormalizeHostname } from '../addresses/hostname';
import type { Body, Expression } from '../config/ast';
import { parseHcl } from '../config/parser';
import { ProviderPattern, parsePatterns } from './patterns';

export type InstallationMethodKind = 'direct' | 'network_mirror' | 'filesystem_mirror';

export interface InstallationMethod {
  kind: InstallationMethodKind;
  /** network_mirror: the base URL; filesystem_mirror: the absolute directory; direct: "". */
  location: string;
  include: ProviderPattern[];
  exclude: ProviderPattern[];
}

export interface HostOverride {
  /** Normalised "host[:port]". */
  host: string;
  /** As written (values may be relative URLs or non-strings). */
  services: Record<string, unknown>;
  /** The CLI configuration file that declared it. */
  file: string;
}

export interface CliSettings {
  hosts: Map<string, HostOverride>;
  /** The one provider_installation block (OpenTofu allows at most one across all files). */
  installation?: { methods: InstallationMethod[]; file: string };
}

/** What one file declares, before validation. */
export interface RawCliSettings {
  hosts: Array<{ host: string; services: Record<string, unknown> }>;
  installations: Array<Array<{ kind: string; attrs: Record<string, unknown> }>>;
}

type Warn = (message: string) => void;

/** Literal value of an HCL expression (strings, numbers, bools, null, tuples, objects); undefined otherwise. */
function literal(e: Expression): unknown {
  switch (e.kind) {
    case 'literal': return e.value;
    case 'paren': return literal(e.expr);
    case 'tuple': return e.items.map(literal);
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const it of e.items) {
        const k = literal(it.key);
        if (typeof k === 'string') out[k] = literal(it.value);
        else if (it.key.kind === 'variable' && it.keyIsBare) out[it.key.name] = literal(it.value);
      }
      return out;
    }
    default: return undefined;
  }
}

/** Attributes of a body as plain values; nested blocks become objects (HCL 1 accepts both forms). */
function attrs(body: Body): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const it of body.items) {
    if (it.kind === 'attribute') out[it.name] = literal(it.expr);
    else if (it.labels.length === 0) out[it.type] = attrs(it.body);
  }
  return out;
}

/** `host` and `provider_installation` blocks from HCL native syntax (other content ignored). */
export function parseCliSettingsHcl(text: string): RawCliSettings {
  const out: RawCliSettings = { hosts: [], installations: [] };
  const file = parseHcl(text);
  for (const it of file.body.items) {
    if (it.kind !== 'block') continue;
    if (it.type === 'host' && it.labels.length === 1) {
      const services = attrs(it.body).services;
      out.hosts.push({ host: it.labels[0].value, services: isObject(services) ? services : {} });
    } else if (it.type === 'provider_installation' && it.labels.length === 0) {
      const methods: RawCliSettings['installations'][number] = [];
      for (const m of it.body.items) {
        if (m.kind === 'block') methods.push({ kind: m.type, attrs: attrs(m.body) });
      }
      out.installations.push(methods);
    }
  }
  return out;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}

/** HCL 1's JSON form: a block may be an object or a list of objects. */
function each(v: unknown): Array<Record<string, unknown>> {
  if (Array.isArray(v)) return v.filter(isObject);
  return isObject(v) ? [v] : [];
}

/** The same from the JSON form (`{"host": {"example.com": {"services": {…}}}, "provider_installation": {…}}`). */
export function parseCliSettingsJson(text: string): RawCliSettings {
  const out: RawCliSettings = { hosts: [], installations: [] };
  let doc: unknown;
  try { doc = JSON.parse(text); } catch { return out; }
  if (!isObject(doc)) return out;
  for (const group of each(doc.host)) {
    for (const [host, body] of Object.entries(group)) {
      for (const b of each(body)) {
        out.hosts.push({ host, services: isObject(b.services) ? b.services : {} });
      }
    }
  }
  for (const pi of each(doc.provider_installation)) {
    const methods: RawCliSettings['installations'][number] = [];
    for (const [kind, body] of Object.entries(pi)) {
      for (const b of each(body)) methods.push({ kind, attrs: b });
    }
    out.installations.push(methods);
  }
  return out;
}

export function parseCliSettings(text: string): RawCliSettings {
  return text.trimStart().startsWith('{') ? parseCliSettingsJson(text) : parseCliSettingsHcl(text);
}

function strings(v: unknown, what: string, warn: Warn): string[] {
  if (v === undefined || v === null) return [];
  if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v as string[];
  warn(`${what} must be a list of strings`);
  throw new Error(what);
}

/** One validated method, or undefined (with a warning) when OpenTofu would reject it. */
function toMethod(raw: { kind: string; attrs: Record<string, unknown> }, file: string, warn: Warn): InstallationMethod | undefined {
  const where = `${raw.kind} block in ${file}`;
  let include: ProviderPattern[];
  let exclude: ProviderPattern[];
  try {
    include = parsePatterns(strings(raw.attrs.include, `"include" of the ${where}`, warn));
    exclude = parsePatterns(strings(raw.attrs.exclude, `"exclude" of the ${where}`, warn));
  } catch (err) {
    if ((err as Error).message.startsWith('invalid')) warn(`ignoring the ${where}: ${(err as Error).message}`);
    return undefined;
  }
  if (raw.kind === 'direct') return { kind: 'direct', location: '', include, exclude };
  if (raw.kind === 'network_mirror') {
    const url = raw.attrs.url;
    if (typeof url !== 'string' || !url) { warn(`ignoring the ${where}: "url" argument is required`); return undefined; }
    return { kind: 'network_mirror', location: url, include, exclude };
  }
  if (raw.kind === 'filesystem_mirror') {
    const path = raw.attrs.path;
    if (typeof path !== 'string' || !path) { warn(`ignoring the ${where}: "path" argument is required`); return undefined; }
    // OpenTofu takes a relative path from its working directory; an editor has none, so it is
    // taken relative to the CLI configuration file.
    return { kind: 'filesystem_mirror', location: isAbsolute(path) ? path : resolve(dirname(file), path), include, exclude };
  }
  warn(raw.kind === 'dev_overrides' ? `ignoring the ${where}: development overrides do not change which versions a registry offers`
    : `ignoring the ${where}: tofu-registry does not support the "${raw.kind}" installation method`);
  return undefined;
}

/** Reads and merges the given CLI configuration files (missing files are skipped). */
export function loadCliSettings(files: string[], warn: Warn = () => {}): CliSettings {
  const settings: CliSettings = { hosts: new Map() };
  for (const file of files) {
    let text: string;
    try { text = readFileSync(file, 'utf8'); } catch { continue; }
    let raw: RawCliSettings;
    try { raw = parseCliSettings(text); } catch (err) {
      warn(`could not read ${file}: ${(err as Error).message}`);
      continue;
    }
    for (const h of raw.hosts) {
      const host = tryNormalizeHostname(h.host);
      if (typeof host !== 'string') { warn(`ignoring the host ${JSON.stringify(h.host)} block in ${file}: ${host.error}`); continue; }
      settings.hosts.set(host, { host, services: h.services, file });
    }
    for (const methods of raw.installations) {
      if (settings.installation) {
        warn(`ignoring a second provider_installation block in ${file}: no more than one may be specified (OpenTofu refuses this configuration)`);
        continue;
      }
      const valid = methods.map((m) => toMethod(m, file, warn)).filter((m): m is InstallationMethod => !!m);
      settings.installation = { methods: valid, file };
    }
  }
  return settings;
}
