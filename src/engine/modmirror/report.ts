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
 */
export function moduleHostBlocks(hosts: string[], baseUrl = PLACEHOLDER_BASE_URL, otherServices: Map<string, Record<string, unknown>> = new Map()): string {
  const base = baseUrl.replace(/\/*$/, '/');
  return hosts.map((host) => {
    const services: Record<string, unknown> = { 'modules.v1': `${base}modules/${host}/` };
    for (const [id, value] of Object.entries(otherServices.get(host) ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      if (id !== 'modules.v1') services[id] = value;
    }
    return `host ${hclString(host)} {\n  services = ${hclValue(services, '  ')}\n}\n`;
  }).join('\n');
}

/**
 * A JSON value as HCL: objects one item a line (keys quoted and aligned), lists on one line.
 * JSON null is left out: HCL 1, which reads the CLI configuration, has no null.
 */
function hclValue(v: unknown, indent: string): string {
  if (typeof v === 'string') return hclString(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.filter((x) => x !== null).map((x) => hclValue(x, indent)).join(', ')}]`;
  const items = Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== null);
  if (!items.length) return '{}';
  const inner = `${indent}  `;
  const width = Math.max(...items.map(([k]) => hclString(k).length));
  return `{\n${items.map(([k, x]) => `${inner}${hclString(k).padEnd(width)} = ${hclValue(x, inner)}`).join('\n')}\n${indent}}`;
}

/** A quoted HCL string: JSON escapes, and no template interpolation. */
function hclString(s: string): string {
  return JSON.stringify(s).replace(/\$\{/g, () => '$${').replace(/%\{/g, () => '%%{');
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
