// Reading the project's Markdown for the doc tests: fenced code blocks (with the marker comment
// before them and whether a block directly follows another), headings and their GitHub anchors,
// links, and the shell scripts an example or a CI snippet runs.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const ROOT = join(__dirname, '..', '..', '..', '..');

/** The Markdown a user reads: the README, the contributor guide, the changelog and docs/. */
export function markdownFiles(): string[] {
  const docs = readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`);
  return ['README.md', 'CONTRIBUTING.md', 'CHANGELOG.md', ...docs];
}

export function readDoc(file: string): string {
  return readFileSync(join(ROOT, file), 'utf8');
}

export interface CodeBlock {
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  lang: string;
  text: string;
  /** `<!-- not-run: why -->` on the last non-blank line before the fence. */
  notRun?: string;
  /** `<!-- exit: N -->` on the last non-blank line before the fence (default 0). */
  exit: number;
  /** The block right before this one, when only blank lines separate them. */
  follows?: CodeBlock;
  /** The nearest `## ` heading above the block. */
  section: string;
}

export function codeBlocks(file: string, md = readDoc(file)): CodeBlock[] {
  const lines = md.split('\n');
  const blocks: CodeBlock[] = [];
  let section = '';
  let lastEnd = -2;
  for (let i = 0; i < lines.length; i++) {
    const h = /^## (.*)$/.exec(lines[i]);
    if (h) section = h[1].trim();
    const open = /^ {0,3}(`{3,}|~{3,})\s*([\w-]*)/.exec(lines[i]);
    if (!open) continue;
    const fence = open[1];
    let j = i + 1;
    while (j < lines.length && !lines[j].trimStart().startsWith(fence)) j++;
    let k = i - 1;
    while (k >= 0 && !lines[k].trim()) k--;
    const before = k >= 0 ? lines[k].trim() : '';
    const notRun = /^<!--\s*not-run:\s*(.*?)\s*-->$/.exec(before)?.[1];
    const exit = /^<!--\s*exit:\s*(\d+)\s*-->$/.exec(before)?.[1];
    const prev = blocks[blocks.length - 1];
    blocks.push({
      file, line: i + 1, lang: open[2].toLowerCase(), text: lines.slice(i + 1, j).join('\n') + '\n',
      notRun, exit: exit === undefined ? 0 : Number(exit), section,
      follows: prev && lastEnd === k ? prev : undefined,
    });
    lastEnd = j;
    i = j;
  }
  return blocks;
}

/** Whether a line of shell runs tofu-registry (as a command, not as a word such as `npm install -g tofu-registry`). */
const RUNS_CLI = /(?:^|[;&|(]|\$\(|\bthen|\bdo)\s*(?:[A-Za-z_][A-Za-z0-9_]*=\S*\s+)*tofu-registry(?=\s|$)/m;

export function runsCli(script: string): boolean {
  return RUNS_CLI.test(script);
}

const SHELL = new Set(['sh', 'shell', 'bash', 'console']);
const YAML = new Set(['yaml', 'yml']);

/**
 * The scripts a block runs, in order: a shell block is one script; a CI snippet (YAML) gives each
 * GitHub Actions `run:` and each GitLab `script:` / `before_script:` / `after_script:` list that
 * runs tofu-registry. Empty when the block runs no tofu-registry.
 */
export function scriptsOf(block: CodeBlock): string[] {
  if (SHELL.has(block.lang)) return runsCli(block.text) ? [block.text] : [];
  if (!YAML.has(block.lang)) return [];
  const lines = block.text.split('\n');
  const scripts: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const run = /^(\s*)(?:- )?run:\s*(.*)$/.exec(lines[i]);
    const list = /^(\s*)(?:before_script|script|after_script):\s*$/.exec(lines[i]);
    if (run) {
      const indent = run[1].length;
      if (!/^[|>]-?$/.test(run[2])) { scripts.push(run[2]); continue; }
      const body: string[] = [];
      while (i + 1 < lines.length && (!lines[i + 1].trim() || lines[i + 1].search(/\S/) > indent + 2)) body.push(lines[++i]);
      const cut = Math.min(...body.filter((l) => l.trim()).map((l) => l.search(/\S/)));
      scripts.push(body.map((l) => l.slice(cut)).join('\n'));
    } else if (list) {
      const items: string[] = [];
      while (i + 1 < lines.length && /^\s+- /.test(lines[i + 1]) && lines[i + 1].search(/\S/) > list[1].length - 1) {
        items.push(lines[++i].replace(/^\s+- /, ''));
      }
      scripts.push(items.join('\n'));
    }
  }
  return scripts.filter(runsCli).map((s) => s + '\n');
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
export function slug(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
}

/** The anchors of a Markdown file's headings (outside code blocks), with GitHub's -1, -2 for repeats. */
export function anchors(md: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const line of withoutFences(md).split('\n')) {
    const h = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!h) continue;
    const s = slug(h[1]);
    const n = seen.get(s) ?? 0;
    seen.set(s, n + 1);
    out.add(n ? `${s}-${n}` : s);
  }
  return out;
}

/** The Markdown with fenced blocks blanked (line numbers kept). */
function withoutFences(md: string): string {
  return md.replace(/^ {0,3}(`{3,}|~{3,})[^\n]*\n[\s\S]*?^ {0,3}\1[^\n]*$/gm, (m) => m.replace(/[^\n]/g, ' '));
}

/** The Markdown with fenced blocks and inline code blanked (line numbers kept). */
export function withoutCode(md: string): string {
  return withoutFences(md).replace(/`[^`\n]*`/g, (m) => ' '.repeat(m.length));
}

export interface Link { target: string; line: number }

/** Inline links and images: `[text](target)`, `![alt](target "title")`. */
export function links(md: string): Link[] {
  const out: Link[] = [];
  withoutCode(md).split('\n').forEach((l, i) => {
    for (const m of l.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) out.push({ target: m[1], line: i + 1 });
  });
  return out;
}

/** The rows of the first table under `## title`: each row's cells, header and rule dropped. */
export function tableUnder(md: string, title: string): string[][] {
  const lines = md.split('\n');
  const start = lines.findIndex((l) => l.trim() === `## ${title}`);
  if (start < 0) return [];
  const rows: string[][] = [];
  for (const l of lines.slice(start + 1)) {
    if (l.startsWith('## ')) break;
    if (!l.startsWith('|')) { if (rows.length) break; continue; }
    rows.push(l.slice(1, l.trimEnd().endsWith('|') ? l.trimEnd().length - 1 : undefined).split(/(?<!\\)\|/).map((c) => c.trim()));
  }
  return rows.slice(2);
}

/** The text of a `## ` section (heading excluded), up to the next `## `. */
export function sectionText(md: string, title: string): string | undefined {
  const lines = md.split('\n');
  const start = lines.findIndex((l) => l.trim() === `## ${title}`);
  if (start < 0) return undefined;
  const end = lines.findIndex((l, i) => i > start && l.startsWith('## '));
  return lines.slice(start + 1, end < 0 ? undefined : end).join('\n');
}

/** The command names of the full usage (`types check` and `types convert` as two). */
export function commandNames(usage: string): string[] {
  const lines = usage.split('\n');
  const out: string[] = [];
  for (const l of lines.slice(lines.indexOf('commands:') + 1)) {
    if (!l.trim()) break;
    const m = /^ {2}([a-z][a-z-]*(?: [a-z][a-z-]*)?)(?= |$)/.exec(l);
    if (m) out.push(m[1]);
  }
  return out;
}
