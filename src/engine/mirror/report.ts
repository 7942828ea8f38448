// A report a person can read (Markdown): what was mirrored, what was already up to date, what
// failed and why, plus ready-to-paste CLI configuration for using the mirror.
import { failureDetail } from '../providersources/types';
import type { MirrorReport } from '../providersources/types';

export function renderReportMarkdown(r: MirrorReport, opts: { mirrorUrl?: string } = {}): string {
  const lines: string[] = [];
  const status = r.failed.length ? `⚠ ${r.failed.length} failed` : '✔ complete';
  lines.push(`# Provider mirror — ${status}`, '');
  lines.push(`Output folder: \`${r.out}\``, '');
  lines.push(`| mirrored | up to date | failed | downloaded |`, `|---:|---:|---:|---:|`,
    `| ${r.mirrored.length} | ${r.upToDate.length} | ${r.failed.length} | ${formatBytes(r.bytesDownloaded)} |`, '');
  if (r.failed.length) {
    lines.push('## Failed', '', '| provider | version | platform | step | reason |', '|---|---|---|---|---|');
    for (const f of r.failed) lines.push(`| ${cell(f.provider || '—')} | ${cell(f.version || '—')} | ${cell(f.platform || '—')} | ${f.step} | ${cell(failureDetail(f))} |`);
    lines.push('');
  }
  const table = (title: string, rows: MirrorReport['mirrored']) => {
    if (!rows.length) return;
    lines.push(`## ${title}`, '', '| provider | version | platform | hashes |', '|---|---|---|---|');
    for (const m of rows) lines.push(`| ${cell(m.provider)} | ${cell(m.version)} | ${m.platform} | ${m.hashes.map((h) => `\`${h}\``).join('<br>')} |`);
    lines.push('');
  };
  table('Mirrored', r.mirrored);
  table('Already up to date (not downloaded again)', r.upToDate);
  if (r.notes.length) {
    lines.push('## Notes', '');
    for (const n of r.notes) lines.push(`- ${n}`);
    lines.push('');
  }
  const snippets = cliConfigSnippets(r.out, opts.mirrorUrl);
  lines.push('## Using the mirror', '',
    'Serve the output folder over HTTPS as a static website (`.json` as `application/json`) and put this in your CLI configuration (`~/.tofurc`):', '',
    '```hcl', snippets.networkMirror.trimEnd(), '```', '',
    'Or, on a machine that can read the folder directly:', '',
    '```hcl', snippets.filesystemMirror.trimEnd(), '```', '');
  return lines.join('\n');
}

/** Text for a Markdown table cell (pipes escaped, one line); the module mirror's report uses it too. */
export function cell(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

function formatBytes(n: number): string {
  if (n >= 1024 ** 3) return `${(n / 1024 ** 3).toFixed(2)} GiB`;
  if (n >= 1024 ** 2) return `${(n / 1024 ** 2).toFixed(1)} MiB`;
  if (n >= 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${n} B`;
}

/** The CLI configuration that uses OUT, as a network mirror (served over HTTPS) or from disk. */
export function cliConfigSnippets(out: string, url = 'https://mirror.example.com/providers/'): { networkMirror: string; filesystemMirror: string } {
  return {
    networkMirror: `provider_installation {\n  network_mirror {\n    url = "${url}"\n  }\n}\n`,
    filesystemMirror: `provider_installation {\n  filesystem_mirror {\n    path = ${JSON.stringify(out)}\n  }\n}\n`,
  };
}
