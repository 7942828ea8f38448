// The reference parts of the docs against the product itself: every flag each command's --help
// prints is in that command's section of docs/cli.md (or its network-flags section), and every flag
// a section's table documents exists; the README's settings table is package.json's
// contributes.configuration; its command table is the command palette's entries.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { commandNames, readDoc, ROOT, sectionText, tableUnder } from './markdown';

const CLI = join(ROOT, 'dist', 'cli.js');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));

function help(args: string[]): string {
  const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8', env: { PATH: process.env.PATH, HOME: '/nonexistent' } });
  assert.equal(r.status, 0, `tofu-registry ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

const flagsIn = (text: string) => new Set([...text.matchAll(/--[a-z][a-z0-9-]*/g)].map((m) => m[0]));

interface Usage { command: string; flags: Set<string>; networkFlags: Set<string> }

/** Each synopsis of `tofu-registry COMMAND --help`: its command words, its own flags, and the network flags. */
export function usages(command: string, text: string): Usage[] {
  const [own, network = ''] = text.split(/\nnetwork flags[^\n]*:\n/);
  // "network flags (types check):" — they belong to that synopsis alone.
  const networkOf = /\nnetwork flags(?: \(([^)]*)\))?:\n/.exec(text)?.[1];
  const out: Usage[] = [];
  for (const part of own.split(/^(?=usage: )/m).filter((p) => p.startsWith('usage: '))) {
    const words = part.slice('usage: tofu-registry '.length).split(/\s+/);
    const name = words.slice(0, words.findIndex((w) => !/^[a-z][a-z-]*$/.test(w))).join(' ');
    assert.ok(name.startsWith(command), part);
    out.push({ command: name, flags: flagsIn(part), networkFlags: networkOf === undefined || networkOf === name ? flagsIn(network) : new Set() });
  }
  return out;
}

test('docs/cli.md documents every flag that each command\'s --help prints, and no flag it does not', () => {
  const reference = readDoc('docs/cli.md');
  const network = sectionText(reference, 'Network flags');
  assert.ok(network, 'docs/cli.md has a "Network flags" section');
  const top = [...new Set(commandNames(help(['--help'])).map((c) => c.split(' ')[0]))];
  assert.ok(top.length >= 10, top.join(' '));
  const missing: string[] = [];
  const unknown: string[] = [];
  let checked = 0;
  for (const command of top) {
    for (const u of usages(command, help([command, '--help']))) {
      const section = sectionText(reference, `\`tofu-registry ${u.command}\``);
      if (section === undefined) { missing.push(`a section "## \`tofu-registry ${u.command}\`"`); continue; }
      for (const f of u.flags) { checked++; if (!flagsIn(section).has(f)) missing.push(`${u.command} ${f}`); }
      for (const f of u.networkFlags) {
        checked++;
        if (!flagsIn(network).has(f)) missing.push(`${u.command} ${f} (network flags)`);
      }
      if (u.networkFlags.size) {
        if (!section.includes('[above](#network-flags)')) missing.push(`${u.command}: a link to the network flags`);
        if (!network.includes(`\`${u.command}\``)) missing.push(`${u.command} among the network commands`);
      }
      // The first column of the section's flag table names only flags the command has.
      for (const row of tableUnder(`## x\n${section}`, 'x')) {
        for (const f of flagsIn(row[0])) if (!u.flags.has(f) && !u.networkFlags.has(f)) unknown.push(`${u.command} ${f}`);
      }
    }
  }
  for (const row of tableUnder(reference, 'Network flags')) {
    for (const f of flagsIn(row[0])) if (!flagsIn(help(['discover', '--help'])).has(f)) unknown.push(`network flag ${f}`);
  }
  assert.deepEqual(missing, [], `docs/cli.md lacks what --help prints: ${missing.join('; ')}`);
  assert.deepEqual(unknown, [], `docs/cli.md documents flags the commands do not have: ${unknown.join('; ')}`);
  assert.ok(checked >= 40, `only ${checked} flags checked`);
});

test('README settings table: every setting of package.json, with its default, and nothing else', () => {
  const properties = pkg.contributes.configuration.properties as Record<string, { default: unknown }>;
  const rows = tableUnder(readDoc('README.md'), 'Settings');
  const documented = rows.map((r) => /^`([^`]+)`$/.exec(r[0])?.[1] ?? r[0]);
  assert.deepEqual([...documented].sort(), Object.keys(properties).sort());
  for (const r of rows) {
    const name = documented[rows.indexOf(r)];
    const d = properties[name].default;
    assert.equal(r[1], d === '' ? '' : `\`${JSON.stringify(d)}\``, `${name}: default`);
    assert.ok(r[2].length > 10, `${name}: says what it does`);
  }
});

test('README command table: exactly the command palette entries of package.json', () => {
  const hidden = new Set((pkg.contributes.menus.commandPalette as { command: string; when: string }[]).filter((m) => m.when === 'false').map((m) => m.command));
  const palette = (pkg.contributes.commands as { command: string; title: string; category: string }[])
    .filter((c) => !hidden.has(c.command)).map((c) => `${c.category}: ${c.title}`);
  const rows = tableUnder(readDoc('README.md'), 'Commands');
  const documented = rows.map((r) => /^\*\*(.+)\*\*$/.exec(r[0])?.[1] ?? r[0]);
  assert.deepEqual([...documented].sort(), [...palette].sort());
  assert.ok(palette.length >= 8);
});

test('README: for users, at most 200 lines, with the two commands and no benchmark internals', () => {
  const readme = readDoc('README.md');
  assert.ok(readme.split('\n').length <= 200, `${readme.split('\n').length} lines`);
  assert.match(readme, /```sh\nnpm ci && npm run demo\n```/);
  assert.match(readme, /```sh\nnpm ci && npm test\n```/);
  assert.match(readFileSync(join(ROOT, '.ci', 'run'), 'utf8'), /^npm ci [^\n]*&& npm test$/m, '.ci/run runs the README\'s test command');
  assert.doesNotMatch(readme, /MB\/s|hcl2json|did not pay/);
});
