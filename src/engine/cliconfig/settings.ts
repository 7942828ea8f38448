// The non-credential parts of OpenTofu's CLI configuration that air-gapped setups rely on
// (internal/command/cliconfig in opentofu/opentofu):
//   host "example.com" { services = { "modules.v1" = "https://…/" } }   → instead of discovery
//   provider_installation { network_mirror { url = "…" include = […] exclude = […] }
//                           filesystem_mirror { path = "…" … }  oci_mirror { repository_template = "…" … }
//                           direct { … } }
// read.ts reads the files; this file validates what they declare as OpenTofu does.
import { dirname, isAbsolute, resolve } from 'node:path';
import { tryNormalizeHostname } from '../addresses/hostname';
import { ProviderPattern, parsePatterns, WILDCARD } from './patterns';
import { parseRepositoryTemplate } from '../addresses/oci-template';
import { CliConfigDocument, CliConfigFile, parseCliConfig, readCliConfigFiles } from './read';

export type InstallationMethodKind = 'direct' | 'network_mirror' | 'filesystem_mirror' | 'oci_mirror';

export interface InstallationMethod {
  kind: InstallationMethodKind;
  /** network_mirror: the base URL; filesystem_mirror: the absolute directory; oci_mirror: the repository_template; direct: "". */
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
export type RawCliSettings = CliConfigDocument;

type Warn = (message: string) => void;

/** The host and provider_installation blocks of one file's text (HCL or JSON). */
export function parseCliSettings(text: string): RawCliSettings {
  return parseCliConfig(text);
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
  if (raw.kind === 'oci_mirror') {
    const template = raw.attrs.repository_template;
    if (typeof template !== 'string' || !template) { warn(`ignoring the ${where}: "repository_template" argument is required`); return undefined; }
    const problem = ociTemplateProblem(template, include);
    if (problem) { warn(`ignoring the ${where}: ${problem}`); return undefined; }
    return { kind: 'oci_mirror', location: template, include, exclude };
  }
  warn(raw.kind === 'dev_overrides' ? `ignoring the ${where}: development overrides do not change which versions a registry offers`
    : `ignoring the ${where}: tofu-registry does not support the "${raw.kind}" installation method`);
  return undefined;
}

/** Reads and merges the given CLI configuration files (missing files are skipped). */
export function loadCliSettings(files: string[], warn: Warn = () => {}): CliSettings {
  return cliSettingsFrom(readCliConfigFiles(files, warn), warn);
}

/** Validates and merges what the files declare, in order (later files win, as Config.Merge). */
export function cliSettingsFrom(files: CliConfigFile[], warn: Warn = () => {}): CliSettings {
  const settings: CliSettings = { hosts: new Map() };
  for (const { file, doc: raw } of files) {
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

/**
 * Why OpenTofu refuses an oci_mirror's repository_template, or undefined: it must give a valid
 * repository address, and use ${hostname}, ${namespace} and ${type} unless the include patterns fix
 * that part to exactly one value (cliconfig/provider_installation.go prepareOCIMirrorRepositoryMapping).
 */
function ociTemplateProblem(template: string, include: ProviderPattern[]): string | undefined {
  let t;
  try { t = parseRepositoryTemplate(template); } catch (err) { return (err as Error).message; }
  const fixed = (f: (p: ProviderPattern) => string) => new Set(include.map(f).filter((v) => v !== WILDCARD)).size === 1;
  const missing = [
    !fixed((p) => p.host) && !t.symbols.has('hostname') ? '"hostname" (unless "include" selects exactly one registry hostname)' : '',
    !fixed((p) => p.namespace) && !t.symbols.has('namespace') ? '"namespace" (unless "include" selects exactly one namespace)' : '',
    !fixed((p) => p.type) && !t.symbols.has('type') ? '"type" (unless "include" selects exactly one provider)' : '',
  ].filter(Boolean);
  return missing.length ? `the repository template must refer to ${missing.join(' and ')}` : undefined;
}
