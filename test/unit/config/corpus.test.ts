// Agreement with HashiCorp's HCL parser (@cdktf/hcl2json, Go compiled to WebAssembly) on the
// shared real-world corpus: module labels/source/version, required_providers and variable
// names/types must agree for every file.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { extractFile, parseHcl, ValueInfo } from '../../../src/engine/config';
import { CORPUS, corpusFiles } from './cases';

/** What hcl2json prints for an expression: literal strings as-is, templates as their content, others as ${…}. */
function asHcl2json(v: ValueInfo | null): string | undefined {
  if (!v) return undefined;
  if (v.literal !== null) return v.literal;
  if (v.expr.kind === 'template' && !v.expr.heredoc) return v.text.slice(1, -1);
  return '${' + v.text + '}';
}

const squash = (s: string): string => s.replace(/\s+/g, '');
function typeText(v: unknown): string {
  const s = String(v);
  return squash(s.startsWith('${') && s.endsWith('}') ? s.slice(2, -1) : s);
}

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
let attributesChecked = 0;

function compareFile(text: string, ref: Json): string[] {
  const problems: string[] = [];
  const ours = extractFile(parseHcl(text), text);
  if (ours.diagnostics.length) problems.push(`diagnostics on a valid file: ${ours.diagnostics.map((d) => `${d.range.start.line + 1}:${d.range.start.character + 1} ${d.message}`).join('; ')}`);

  const refModules: [string, Json][] = [];
  for (const [name, blocks] of Object.entries((ref.module ?? {}) as Record<string, Json[]>)) for (const b of blocks) refModules.push([name, b]);
  const ourNames = ours.modules.map((m) => m.name).sort();
  assertEq(problems, 'module names', ourNames, refModules.map(([n]) => n).sort());
  for (const m of ours.modules) {
    const r = refModules.find(([n]) => n === m.name)?.[1];
    if (!r) continue;
    assertEq(problems, `module ${m.name} source`, asHcl2json(m.source), r.source);
    assertEq(problems, `module ${m.name} version`, asHcl2json(m.version), r.version);
    assertEq(problems, `module ${m.name} arguments`, m.arguments.map((a) => a.name).sort(), Object.keys(r).filter((k) => k !== 'source' && k !== 'version').sort());
  }

  const refProviders: [string, unknown][] = [];
  for (const t of (ref.terraform ?? []) as Json[]) for (const rp of (t.required_providers ?? []) as Json[]) refProviders.push(...Object.entries(rp));
  // hcl2json (Go maps) sorts the keys: compare by name.
  assertEq(problems, 'required_providers names', ours.requiredProviders.map((p) => p.name).sort(), refProviders.map(([n]) => n).sort());
  ours.requiredProviders.forEach((p) => {
    const r = refProviders.find(([n]) => n === p.name)?.[1];
    if (r === undefined) return;
    if (typeof r === 'string') {
      assertEq(problems, `provider ${p.name} legacy`, p.legacy, true);
      assertEq(problems, `provider ${p.name} version`, asHcl2json(p.version), r);
    } else {
      const o = r as Json;
      assertEq(problems, `provider ${p.name} source`, asHcl2json(p.source), o.source);
      assertEq(problems, `provider ${p.name} version`, asHcl2json(p.version), o.version);
    }
  });

  const refVars: [string, Json][] = [];
  for (const [name, blocks] of Object.entries((ref.variable ?? {}) as Record<string, Json[]>)) for (const b of blocks) refVars.push([name, b]);
  assertEq(problems, 'variable names', ours.variables.map((v) => v.name).sort(), refVars.map(([n]) => n).sort());
  for (const v of ours.variables) {
    const r = refVars.find(([n]) => n === v.name)?.[1];
    if (!r) continue;
    const mine = v.type ? (v.type.literal ?? squash(v.type.text)) : undefined;
    assertEq(problems, `variable ${v.name} type`, mine, r.type === undefined ? undefined : typeText(r.type));
  }
  attributesChecked += compareAttributes(text, ref, problems);
  return problems;
}

/**
 * Deeper check: every attribute of every block that hcl2json can address unambiguously (one block
 * per type/labels) — string values (escapes, heredocs) must be equal, and for expressions our
 * source text must be what hcl2json prints inside `${…}`.
 */
function compareAttributes(text: string, ref: Json, problems: string[]): number {
  let checked = 0;
  for (const b of parseHcl(text).body.items) {
    if (b.kind !== 'block') continue;
    let r: unknown = ref[b.type];
    for (const l of b.labels) r = r && (r as Json)[l.value];
    if (!Array.isArray(r) || r.length !== 1) continue;
    const values = r[0] as Json;
    for (const a of b.body.items) {
      // hcl2json turns object/tuple constructors into JSON structures: compare where it prints a string.
      if (a.kind !== 'attribute' || typeof values[a.name] !== 'string') continue;
      const e = a.expr;
      let mine: string;
      if (e.kind === 'literal') {
        if (typeof e.value !== 'string') continue;
        mine = e.value;
      } else if (e.kind === 'template') {
        if (e.heredoc) continue;
        mine = text.slice(e.range.start.offset + 1, e.range.end.offset - 1);
      } else {
        mine = '${' + text.slice(e.range.start.offset, e.range.end.offset) + '}';
      }
      checked++;
      assertEq(problems, `${b.type} ${b.labels.map((l) => l.value).join('.')} ${a.name}`, mine, values[a.name]);
    }
  }
  return checked;
}

function assertEq(problems: string[], what: string, a: unknown, b: unknown): void {
  if (JSON.stringify(a) !== JSON.stringify(b)) problems.push(`${what}: ours ${JSON.stringify(a)} vs hcl2json ${JSON.stringify(b)}`);
}

test('corpus: every file agrees with @cdktf/hcl2json (modules, required_providers, variables)', async (t) => {
  if (!existsSync(CORPUS)) {
    t.skip(`shared corpus not found at ${CORPUS} (it sits beside the clone in CI)`);
    return;
  }
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { parse } = require('@cdktf/hcl2json') as { parse(name: string, text: string): Promise<Json> };
  const files = corpusFiles();
  assert.ok(files.length >= 466, `expected the 466-file corpus, found ${files.length}`);
  const failures: string[] = [];
  let modules = 0;
  let providers = 0;
  let variables = 0;
  for (const f of files) {
    const text = readFileSync(f, 'utf8');
    const ref = await parse(path.basename(f), text);
    const problems = compareFile(text, ref);
    const s = extractFile(parseHcl(text), text);
    modules += s.modules.length;
    providers += s.requiredProviders.length;
    variables += s.variables.length;
    if (problems.length) failures.push(`${path.relative(CORPUS, f)}:\n    ${problems.join('\n    ')}`);
  }
  assert.equal(failures.length, 0, `${failures.length} files disagree:\n  ${failures.slice(0, 20).join('\n  ')}`);
  // The corpus really exercises the extraction (guards against comparing two empty results).
  assert.ok(modules > 50 && providers > 50 && variables > 1000, `modules ${modules}, providers ${providers}, variables ${variables}`);
  assert.ok(attributesChecked > 10000, `attribute values compared: ${attributesChecked}`);
});
