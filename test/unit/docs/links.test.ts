// Relative links in the README, CONTRIBUTING, the changelog and docs/ resolve to files and anchors
// that exist; the pages in the .vsix (built as `npm run package` builds it) and the npm package (`npm pack --dry-run`) link
// only to files packed with them, so the Marketplace page and an installed package have no dead
// links (package.json names no repository, and `npm run package` keeps relative links).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import * as yauzl from 'yauzl';
import { tempDir } from '../../support/temp';
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

/** Every entry of a zip file: name → contents. */
function unzip(file: string): Promise<Map<string, Buffer>> {
  return new Promise((resolve, reject) => {
    yauzl.open(file, { lazyEntries: true }, (err, zip) => {
      if (err || !zip) return reject(err);
      const out = new Map<string, Buffer>();
      zip.on('entry', (e: yauzl.Entry) => zip.openReadStream(e, (e2, stream) => {
        if (e2 || !stream) return reject(e2);
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => { out.set(e.fileName, Buffer.concat(chunks)); zip.readEntry(); });
      }));
      zip.on('end', () => resolve(out));
      zip.on('error', reject);
      zip.readEntry();
    });
  });
}

/** Links in the packed Markdown that point at files the package does not carry (names as packed). */
function linksLeaving(files: Map<string, string>): string[] {
  const outside: string[] = [];
  for (const [file, text] of files) {
    if (!file.toLowerCase().endsWith('.md')) continue;
    for (const link of links(text)) {
      const r = resolveLink(file, link.target);
      if (r && !files.has(r.file)) outside.push(`${file}:${link.line}: ${link.target}`);
    }
  }
  return outside;
}

const DEVELOPER_FILES = /^(docs\/(architecture|performance)\.md|CONTRIBUTING\.md|test\/.*|src\/.*)$/;

test('the .vsix carries the README, changelog, licence, screenshots and the pages they link to — and links nowhere else', async () => {
  // The package as `npm run package` makes it (the same vsce flags), read back from the zip: vsce
  // renames README.md, CHANGELOG.md and LICENSE inside it, so links are checked as packed.
  const script = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts.package as string).split('&&').pop()!.trim();
  const args = script.split(/\s+/).slice(1);
  const out = tempDir('doc-vsix-');
  args.splice(args.indexOf('--out'), 2, '--out', join(out, 'x.vsix'));
  const r = spawnSync(process.execPath, [join(ROOT, 'node_modules', '@vscode', 'vsce', 'vsce'), ...args], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stdout + r.stderr);
  const zip = await unzip(join(out, 'x.vsix'));
  rmSync(out, { recursive: true, force: true });
  const files = new Map([...zip].filter(([n]) => n.startsWith('extension/')).map(([n, b]) => [n.slice('extension/'.length), b.toString('utf8')]));
  const names = [...files.keys()];
  for (const f of ['readme.md', 'changelog.md', 'LICENSE.txt', 'docs/cli.md']) assert.ok(files.has(f), `the .vsix carries ${f}: ${names.join(' ')}`);
  for (const shot of ['completion', 'hover', 'diagnostics', 'dependencies', 'outputs']) assert.ok(files.has(`media/screenshot-${shot}.png`), shot);
  assert.deepEqual(linksLeaving(files), [], 'links in the .vsix to files it does not carry');
  assert.deepEqual(names.filter((f) => DEVELOPER_FILES.test(f)), [], 'the .vsix carries developer files');
});

test('the npm package links only to files it carries', () => {
  const r = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const paths = (JSON.parse(r.stdout) as { files: { path: string }[] }[])[0].files.map((f) => f.path);
  assert.ok(paths.includes('dist/cli.js') && paths.includes('README.md'), paths.join(' '));
  const files = new Map(paths.map((p) => [p, p.endsWith('.md') ? readDoc(p) : '']));
  assert.deepEqual(linksLeaving(files), [], 'links in the npm package to files it does not carry');
  assert.deepEqual(paths.filter((f) => DEVELOPER_FILES.test(f)), [], 'the npm package carries developer files');
});
