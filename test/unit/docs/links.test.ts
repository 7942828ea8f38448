// Relative links in the README, CONTRIBUTING, the changelog and docs/ resolve to files and anchors
// that exist; the pages in the .vsix (`vsce ls`) and the npm package (`npm pack --dry-run`) link
// only to files packed with them, so the Marketplace page and an installed package have no dead
// links (package.json names no repository, and `npm run package` keeps relative links).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { anchors, links, markdownFiles, readDoc, ROOT } from './markdown';

const EXTERNAL = /^[a-z][a-z0-9+.-]*:/i;

/** A relative link's file (relative to ROOT) and anchor, or undefined for an external link. */
function resolveLink(from: string, target: string): { file: string; anchor?: string } | undefined {
  if (EXTERNAL.test(target)) return undefined;
  const [path, anchor] = target.split('#');
  const file = path ? normalize(relative(ROOT, join(ROOT, dirname(from), decodeURIComponent(path)))) : from;
  return { file, anchor };
}

test('relative links and anchors resolve', () => {
  const broken: string[] = [];
  let checked = 0;
  for (const file of [...markdownFiles(), 'src/engine/README.md']) {
    for (const link of links(readDoc(file))) {
      const r = resolveLink(file, link.target);
      if (!r) continue;
      checked++;
      const abs = join(ROOT, r.file);
      if (r.file.startsWith('..') || !existsSync(abs)) { broken.push(`${file}:${link.line}: ${link.target} (no such file)`); continue; }
      if (r.anchor !== undefined) {
        if (!r.file.endsWith('.md') || statSync(abs).isDirectory()) { broken.push(`${file}:${link.line}: ${link.target} (an anchor into a non-Markdown file)`); continue; }
        if (!anchors(readFileSync(abs, 'utf8')).has(r.anchor)) broken.push(`${file}:${link.line}: ${link.target} (no heading #${r.anchor} in ${r.file})`);
      }
    }
  }
  assert.deepEqual(broken, []);
  assert.ok(checked >= 60, `only ${checked} links checked`);
});

test('anchors: GitHub\'s slugs, repeats numbered', () => {
  assert.deepEqual([...anchors('# A `b` c\n## What OpenTofu does, and so do we\n## x\n## x\n```\n# not a heading\n```\n')],
    ['a-b-c', 'what-opentofu-does-and-so-do-we', 'x', 'x-1']);
});

function closedLinks(kind: string, files: string[]): void {
  const packed = new Set(files.map((f) => normalize(f)));
  for (const f of ['README.md', 'CHANGELOG.md', 'LICENSE']) assert.ok(packed.has(f), `${kind} carries ${f}: ${files.join(' ')}`);
  const outside: string[] = [];
  for (const file of [...packed].filter((f) => f.endsWith('.md'))) {
    for (const link of links(readDoc(file))) {
      const r = resolveLink(file, link.target);
      if (r && !packed.has(r.file)) outside.push(`${file}:${link.line}: ${link.target}`);
    }
  }
  assert.deepEqual(outside, [], `${kind}: links to files the package does not carry`);
  assert.ok(!files.some((f) => /^docs\/(architecture|performance)\.md$|^CONTRIBUTING\.md$|^test\/|^src\//.test(f)), `${kind} carries developer files: ${files.join(' ')}`);
}

test('the .vsix carries the README, changelog, licence, screenshots and the pages they link to — and links nowhere else', () => {
  const r = spawnSync(process.execPath, [join(ROOT, 'node_modules', '@vscode', 'vsce', 'vsce'), 'ls', '--no-dependencies'], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const files = r.stdout.split('\n').map((l) => l.trim()).filter(Boolean);
  for (const shot of ['completion', 'hover', 'diagnostics', 'dependencies', 'outputs']) assert.ok(files.includes(`media/screenshot-${shot}.png`), shot);
  closedLinks('the .vsix', files);
});

test('the npm package links only to files it carries', () => {
  const r = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const files = (JSON.parse(r.stdout) as { files: { path: string }[] }[])[0].files.map((f) => f.path);
  assert.ok(files.includes('dist/cli.js'), files.join(' '));
  closedLinks('the npm package', files);
});
