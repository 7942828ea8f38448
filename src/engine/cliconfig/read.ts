// Reads OpenTofu CLI configuration files (internal/command/cliconfig) into plain data, once per
// file, for every part we use: `credentials` and `credentials_helper` blocks (credentials/), `host`
// blocks and the `provider_installation` block (settings.ts). HCL native syntax is read with the
// project's parser (src/engine/config); a file whose first non-blank character is "{" is JSON, as
// HCL 1 (which OpenTofu uses for this file) decides. Values are taken as HCL 1 takes them: the CLI
// configuration has no interpolation, so "${…}" in a string is text.
import { readFileSync } from 'node:fs';
import type { Body, Expression } from '../config/ast';
import { parseHcl } from '../config/parser';
import { shortText } from '../net/http-errors';
import { parseJsonBounded } from '../net/json-depth';
import { Hcl1DepthError, Hcl1Error, parseHcl1 } from './hcl1';

export interface CliConfigDocument {
  hosts: Array<{ host: string; services: Record<string, unknown> }>;
  /** Each provider_installation block: its methods in order. */
  installations: Array<Array<{ kind: string; attrs: Record<string, unknown> }>>;
  /** `credentials "HOST" { token = "…" }`; a block without a string token has `token` undefined. */
  credentials: Array<{ host: string; token?: string }>;
  /** `credentials_helper "NAME" { args = […] }`; `args` undefined when it is not a list of strings. */
  helpers: Array<{ name: string; args?: string[] }>;
  /** `oci_credentials "HOST[/REPO-PREFIX]" { … }`: the string arguments as written (oci/credentials.ts validates them). */
  ociCredentials: Array<{ prefix: string; attrs: Record<string, unknown> }>;
  /** `oci_default_credentials { … }` (OpenTofu allows one across all files). */
  ociDefaultCredentials: Array<Record<string, unknown>>;
}

/** One file that was read: its path and what it declares. */
export interface CliConfigFile {
  file: string;
  doc: CliConfigDocument;
  /** Why the file could not be used ("Error parsing FILE: line 3: …"): OpenTofu then reads none of it, and `doc` is empty. */
  problem?: string;
}

type Warn = (message: string) => void;

function emptyDocument(): CliConfigDocument {
  return { hosts: [], installations: [], credentials: [], helpers: [], ociCredentials: [], ociDefaultCredentials: [] };
}

const ESCAPES: Record<string, string> = { a: '\x07', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t', v: '\v', '"': '"', '\\': '\\' };

/**
 * A quoted string's source text as HCL 1 (hcl/strconv.Unquote) reads it: C escapes (\n, \x41,
 * \u00e9, \101 …), and the text of a `${…}` copied as written — HCL 1 has no `$${` escape, so
 * "$${x}" is the text $${x}, not HCL 2's ${x}.
 */
function unescapeHcl1(raw: string): string {
  return raw.replace(/\$\{[^}]*\}|\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[0-7]{3}|.)/g, (whole, e: string | undefined) => {
    if (e === undefined) return whole; // a ${…} region
    if (/^[xuU]/.test(e)) return String.fromCodePoint(parseInt(e.slice(1), 16));
    if (/^[0-7]{3}$/.test(e)) return String.fromCharCode(parseInt(e, 8));
    return ESCAPES[e] ?? e;
  });
}

/** The text between a quoted string's quotes, as written. */
function quotedContent(e: Expression & { contentRange?: { start: { offset: number }; end: { offset: number } } }, text: string): string {
  if (e.contentRange) return text.slice(e.contentRange.start.offset, e.contentRange.end.offset);
  const raw = text.slice(e.range.start.offset, e.range.end.offset);
  return raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"') ? raw.slice(1, -1) : raw.replace(/^"/, '');
}

/** Literal value of an expression (strings, numbers, bools, null, tuples, objects); undefined otherwise. */
function literal(e: Expression, text: string): unknown {
  switch (e.kind) {
    // a quoted string the parser folded (HCL 2 escapes applied) is read again from its source as HCL 1 reads it
    case 'literal': return typeof e.value === 'string' && text[e.range.start.offset] === '"' ? unescapeHcl1(quotedContent(e, text)) : e.value;
    case 'template': return e.heredoc ? undefined : unescapeHcl1(quotedContent(e, text));
    case 'paren': return literal(e.expr, text);
    case 'tuple': return e.items.map((x) => literal(x, text));
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const it of e.items) {
        const k = literal(it.key, text);
        if (typeof k === 'string') out[k] = literal(it.value, text);
        else if (it.key.kind === 'variable' && it.keyIsBare) out[it.key.name] = literal(it.value, text);
      }
      return out;
    }
    default: return undefined;
  }
}

/** Attributes of a body as plain values; nested blocks become objects (HCL 1 accepts both forms). */
function attrs(body: Body, text: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const it of body.items) {
    if (it.kind === 'attribute') out[it.name] = literal(it.expr, text);
    else if (it.labels.length === 0) out[it.type] = attrs(it.body, text);
  }
  return out;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return !!v && typeof v === 'object' && !Array.isArray(v);
}

function stringList(v: unknown): string[] | undefined {
  if (v === undefined || v === null) return [];
  return Array.isArray(v) && v.every((x) => typeof x === 'string') ? v as string[] : undefined;
}

/** The parts we use, from HCL native syntax (other content ignored). */
export function parseCliConfigHcl(text: string): CliConfigDocument {
  const out = emptyDocument();
  for (const it of parseHcl(text).body.items) {
    if (it.kind !== 'block') continue;
    const label = it.labels.length === 1 ? it.labels[0].value : undefined;
    if (it.type === 'host' && label !== undefined) {
      const services = attrs(it.body, text).services;
      out.hosts.push({ host: label, services: isObject(services) ? services : {} });
    } else if (it.type === 'provider_installation' && it.labels.length === 0) {
      out.installations.push(it.body.items.flatMap((m) => (m.kind === 'block' ? [{ kind: m.type, attrs: attrs(m.body, text) }] : [])));
    } else if (it.type === 'credentials' && label !== undefined) {
      const token = attrs(it.body, text).token;
      out.credentials.push({ host: label, token: typeof token === 'string' ? token : undefined });
    } else if (it.type === 'credentials_helper' && label !== undefined) {
      out.helpers.push({ name: label, args: stringList(attrs(it.body, text).args) });
    } else if (it.type === 'oci_credentials' && label !== undefined) {
      out.ociCredentials.push({ prefix: label, attrs: attrs(it.body, text) });
    } else if (it.type === 'oci_default_credentials' && it.labels.length === 0) {
      out.ociDefaultCredentials.push(attrs(it.body, text));
    }
  }
  return out;
}

/** HCL 1's JSON form: a block may be an object or a list of objects. */
function each(v: unknown): Array<Record<string, unknown>> {
  if (Array.isArray(v)) return v.filter(isObject);
  return isObject(v) ? [v] : [];
}

/** Labelled blocks in JSON: `{"LABEL": {…}}` (or lists of such objects). */
function labelled(v: unknown): Array<[string, Record<string, unknown>]> {
  return each(v).flatMap((group) => Object.entries(group).flatMap(([label, body]) => each(body).map((b) => [label, b] as [string, Record<string, unknown>])));
}

/** The same from the JSON form (`{"credentials": {"example.com": {"token": "…"}}, "host": {…}, …}`). */
export function parseCliConfigJson(text: string): CliConfigDocument {
  const out = emptyDocument();
  let doc: unknown;
  try { doc = parseJsonBounded(text); } catch { return out; }
  if (!isObject(doc)) return out;
  for (const [host, b] of labelled(doc.host)) out.hosts.push({ host, services: isObject(b.services) ? b.services : {} });
  for (const pi of each(doc.provider_installation)) {
    out.installations.push(Object.entries(pi).flatMap(([kind, body]) => each(body).map((b) => ({ kind, attrs: b }))));
  }
  for (const [host, b] of labelled(doc.credentials)) out.credentials.push({ host, token: typeof b.token === 'string' ? b.token : undefined });
  for (const [name, b] of labelled(doc.credentials_helper)) out.helpers.push({ name, args: stringList(b.args) });
  for (const [prefix, b] of labelled(doc.oci_credentials)) out.ociCredentials.push({ prefix, attrs: b });
  out.ociDefaultCredentials.push(...each(doc.oci_default_credentials));
  return out;
}

export function parseCliConfig(text: string): CliConfigDocument {
  return text.trimStart().startsWith('{') ? parseCliConfigJson(text) : parseCliConfigHcl(text);
}

/** What OpenTofu prints before the problems it found in the CLI configuration (main.go). */
export const CLI_CONFIG_PROBLEMS = 'There are some problems with the CLI configuration';

function escapeControls(text: string): string {
  return text.replace(/[\p{Cc}\u2028\u2029]/gu, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A message of a file's text or an error, safe to show: control characters escaped, length cut. */
function shown(text: string): string {
  return shortText(escapeControls(text), 300);
}

/**
 * Whether OpenTofu can parse the file at all, and if not its error as tofu words it ("Error parsing
 * FILE: …"): HCL native syntax as hashicorp/hcl v1 reads it (hcl1.ts), or the JSON form.
 */
function parseProblem(file: string, text: string): string | undefined {
  try {
    if (text.trimStart().startsWith('{')) parseJsonBounded(text);
    else parseHcl1(text);
    return undefined;
  } catch (err) {
    if (err instanceof Hcl1DepthError) return undefined; // tofu would read it: undecided, read as before
    const where = err instanceof Hcl1Error && err.line !== undefined ? `line ${err.line}: ` : '';
    const message = err instanceof Hcl1Error ? err.message.replace(/^\d+: /, '') : (err as Error).message;
    return `Error parsing ${file}: ${where}${shown(message)}`;
  }
}

/**
 * One warning for every problem found, worded as tofu words it ("There are some problems with the
 * CLI configuration: Error parsing FILE: …"); undefined when there is none.
 */
export function cliConfigProblemMessage(files: Array<{ problem?: string }>): string | undefined {
  const problems = files.flatMap((f) => (f.problem ? [f.problem] : []));
  if (!problems.length) return undefined;
  return `${CLI_CONFIG_PROBLEMS}: ${escapeControls(problems.join('; '))}. ${problems.length > 1 ? 'These files are' : 'This file is'} ignored, as OpenTofu ignores a CLI configuration file it cannot read; the rest of the configuration is used.`;
}

/**
 * Reads the given files in order: missing ones skipped; one that cannot be read or does not parse
 * is kept with its `problem` and an empty document (OpenTofu reads none of it), and `warn` receives
 * one message for all of them (cliConfigProblemMessage).
 */
export function readCliConfigFiles(files: string[], warn: Warn = () => {}): CliConfigFile[] {
  const out: CliConfigFile[] = [];
  for (const file of files) {
    let text: string;
    try { text = readFileSync(file, 'utf8'); } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') out.push({ file, doc: emptyDocument(), problem: `Error reading ${file}: ${shown((err as Error).message)}` });
      continue;
    }
    const problem = parseProblem(file, text);
    if (problem) { out.push({ file, doc: emptyDocument(), problem }); continue; }
    try {
      out.push({ file, doc: parseCliConfig(text) });
    } catch (err) {
      out.push({ file, doc: emptyDocument(), problem: `Error parsing ${file}: ${shown((err as Error).message)}` });
    }
  }
  const message = cliConfigProblemMessage(out);
  if (message) warn(message);
  return out;
}
