// What a person reads after a module mirror run: the `host` blocks that point tofu at the site
// (the CLI prints them, the JSON carries them as cliConfig), and a Markdown report for the editor.
import { cell } from '../mirror/report';
import { moduleFailureDetail } from './types';
import type { ModuleMirrorReport } from './types';

/** Where the site is served when the user did not say (--base-url). */
export const PLACEHOLDER_BASE_URL = 'https://mirror.example.com/';

/**
 * One `host` block per origin host: modules.v1 → BASE/modules/HOST/. A host block replaces the
 * host's service discovery as a whole, so every other service its discovery announced
 * (`otherServices`: providers.v1's URL, login.v1's object …) is kept in the block, objects as HCL
 * objects: provider installation and `tofu login` for that host go on working as before.
 *
 * The CLI configuration is read by HCL 1 (hashicorp/hcl v1), not HCL 2: in a quoted string `${`
 * opens a region where quotes and newlines do not end the string until its braces balance (so a
 * value holding `${` — even HCL 2's `$${` escape — can swallow the rest of the user's file), and
 * a NUL or U+E123 is an error. A service whose name or value HCL 1 cannot read back exactly is
 * left out, with a comment saying so.
 */
export function moduleHostBlocks(hosts: string[], baseUrl = PLACEHOLDER_BASE_URL, otherServices: Map<string, Record<string, unknown>> = new Map()): string {
  const base = baseUrl.replace(/\/*$/, '/');
  return hosts.map((host) => {
    const modules = hcl1String(`${base}modules/${host}/`);
    // hosts are directory names checked as hostnames; the base URL is the user's own
    if (modules === undefined) return `# host "${host}" left out: the mirror URL ${JSON.stringify(base)} cannot be written in HCL 1 (it holds "\${", "%{" or a control character)\n`;
    const items: Array<[string, string]> = [['"modules.v1"', modules]];
    const notes: string[] = [];
    for (const [id, value] of Object.entries(otherServices.get(host) ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      if (id === 'modules.v1' || value === null) continue;
      const key = hcl1String(id);
      const rendered = key === undefined ? undefined : hcl1Value(value, '    ', 1);
      if (key !== undefined && rendered !== undefined) items.push([key, rendered]);
      else notes.push(`  # left out: the service ${key === undefined ? 'with a name that' : `${key}, whose value`} cannot be written safely in HCL 1 (which reads this file): "\${", "%{", a control character or nesting deeper than ${MAX_HCL1_DEPTH}\n`);
    }
    return `host ${hcl1String(host)} {\n${notes.join('')}  services = ${hclObject(items, '  ')}\n}\n`;
  }).join('\n');
}

/** How deeply a service value may nest in a host block (login.v1 and its kin nest two or three levels). */
const MAX_HCL1_DEPTH = 16;

/**
 * A JSON value as HCL 1 (objects one item a line, keys quoted and aligned; lists on one line);
 * undefined when some part of it cannot be written safely. JSON null is left out: HCL 1 has none.
 */
function hcl1Value(v: unknown, indent: string, depth: number): string | undefined {
  if (typeof v === 'string') return hcl1String(v);
  if (typeof v === 'boolean') return String(v);
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : undefined;
  if (!v || typeof v !== 'object' || depth > MAX_HCL1_DEPTH) return undefined;
  if (Array.isArray(v)) {
    const parts = v.filter((x) => x !== null).map((x) => hcl1Value(x, indent, depth + 1));
    return parts.every((x) => x !== undefined) ? `[${parts.join(', ')}]` : undefined;
  }
  const items: Array<[string, string]> = [];
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    if (x === null) continue;
    const key = hcl1String(k);
    const value = key === undefined ? undefined : hcl1Value(x, `${indent}  `, depth + 1);
    if (key === undefined || value === undefined) return undefined;
    items.push([key, value]);
  }
  return hclObject(items, indent);
}

function hclObject(items: Array<[string, string]>, indent: string): string {
  if (!items.length) return '{}';
  const width = items.reduce((w, [k]) => Math.max(w, k.length), 0);
  return `{\n${items.map(([k, x]) => `${indent}  ${k.padEnd(width)} = ${x}`).join('\n')}\n${indent}}`;
}

/**
 * A quoted HCL 1 string, or undefined when HCL 1 would not read it back as the same text: `${`
 * (HCL 1 has no escape for it), control characters, lone surrogates and U+E123 (reserved by HCL 1's
 * scanner) — and `%{`, which HCL 1 reads as text but HCL 2-based readers of the same file (editors,
 * this project's) take for a template directive. Only `"` and `\` are escaped.
 */
export function hcl1String(s: string): string | undefined {
  // eslint-disable-next-line no-control-regex
  if (s.includes('${') || s.includes('%{') || /[\u0000-\u001f\u007f\ue123]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s)) return undefined;
  return `"${s.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

export function renderModuleReportMarkdown(r: ModuleMirrorReport): string {
  const lines: string[] = [];
  const status = r.failed.length ? `⚠ ${r.failed.length} failed` : '✔ complete';
  lines.push(`# Module mirror — ${status}`, '', `Output folder: \`${r.out}\``, '',
    '| mirrored | up to date | failed | skipped sources |', '|---:|---:|---:|---:|',
    `| ${r.mirrored.length} | ${r.upToDate.length} | ${r.failed.length} | ${r.skipped.length} |`, '');
  if (r.failed.length) {
    lines.push('## Failed', '', '| module | version | step | reason |', '|---|---|---|---|');
    for (const f of r.failed) lines.push(`| ${cell(f.module || '—')} | ${cell(f.version || '—')} | ${f.step} | ${cell(moduleFailureDetail(f))} |`);
    lines.push('');
  }
  if (r.mirrored.length) {
    lines.push('## Mirrored', '', '| module | version | fetched from | archive |', '|---|---|---|---|');
    for (const m of r.mirrored) lines.push(`| ${cell(m.module)} | ${cell(m.version)} | \`${cell(m.location)}\` | \`${cell(m.archive)}\` |`);
    lines.push('');
  }
  if (r.upToDate.length) {
    lines.push('## Already up to date (not fetched again)', '', '| module | version |', '|---|---|');
    for (const m of r.upToDate) lines.push(`| ${cell(m.module)} | ${cell(m.version)} |`);
    lines.push('');
  }
  if (r.skipped.length) {
    lines.push('## Not mirrorable without changing the source', '', '| source | reason |', '|---|---|');
    for (const s of r.skipped) lines.push(`| \`${cell(s.source)}\` | ${cell(s.reason)} |`);
    lines.push('');
  }
  lines.push('## Using the mirror', '',
    'Serve the output folder as a static website over HTTPS (any web server, object store or CDN: `tofu` reads `versions` and `download` whatever their content type), then put this in your CLI configuration (`~/.tofurc`), with your mirror\'s URL:', '');
  if (r.cliConfig) lines.push('```hcl', r.cliConfig.trimEnd(), '```', '');
  else lines.push('_(nothing mirrored yet)_', '');
  return lines.join('\n');
}
