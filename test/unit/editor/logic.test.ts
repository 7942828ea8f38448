// The editor's pure logic (src/features): cursor location, completion items, hovers,
// diagnostics and fixes, on real parsed documents (no vscode, no network).
import { describe, it } from 'node:test';
import * as assert from 'node:assert/strict';
import { parseConfig } from '../../../src/engine/config';
import { RegistryError } from '../../../src/engine/net/errors';
import { selectVersions } from '../../../src/engine/versions';
import { versionCompletions } from '../../../src/features/completion';
import { ownerByText, stringAtCursor } from '../../../src/features/cursor';
import { computeDiagnostics } from '../../../src/features/diagnostics';
import { fixesFor, updateConstraint } from '../../../src/features/fixes';
import { NO_NETWORK, sourceHover, versionHover } from '../../../src/features/hover';
import { locateString } from '../../../src/features/locate';
import type { Settled } from '../../../src/features/lookup';
import { collectRefs } from '../../../src/features/refs';
import { targetOf } from '../../../src/features/target';
import { isOurFileName } from '../../../src/editor/selector';

const VERSIONS = ['4.9.0', '5.2.1', '6.0.0-beta1', '5.31.0', '5.30.0'];

function refsOf(text: string, path = 'main.tf') {
  return collectRefs(parseConfig(text, path), text);
}

describe('editor logic: cursor', () => {
  it('finds the version string with the cursor anywhere inside, and unterminated strings', () => {
    const text = 'module "a" {\n  source = "x/y/z"\n  version = "~> 5.3"\n}\n';
    const off = text.indexOf('~> 5.3') + 3;
    const at = stringAtCursor(text, off)!;
    assert.equal(at.attr, 'version');
    assert.equal(at.value, '~> 5.3');
    assert.equal(text.slice(at.contentStart, at.contentEnd), '~> 5.3');
    assert.equal(at.line, 2);
    const open = 'module "a" {\n  source = "x/y/z"\n  version = "~> 5.\n}\n';
    const u = stringAtCursor(open, open.indexOf('~> 5.') + 5)!;
    assert.equal(u.terminated, false);
    assert.equal(u.value, '~> 5.');
    assert.equal(stringAtCursor(text, text.indexOf('module') + 2), undefined);
    assert.equal(stringAtCursor('  name = "x"\n', 10), undefined, 'other attributes are not ours');
  });

  it('falls back to the text to find the owner of a string being typed', () => {
    const text = 'module "net" {\n  version = "~> 5.\n  source = "corp/net/aws"\n}\n';
    const o = ownerByText(text, text.indexOf('~> 5.') + 2)!;
    assert.deepEqual([o.kind, o.name, o.source], ['module', 'net', 'corp/net/aws']);
    const loc = locateString(text, refsOf(text), text.indexOf('~> 5.') + 2)!;
    assert.equal(loc.info.target?.kind, 'module');
    assert.equal(loc.info.target?.display, 'corp/net/aws');
  });

  it('locates provider entries in required_providers (object and legacy forms)', () => {
    const text = 'terraform {\n  required_providers {\n    aws = {\n      source = "hashicorp/aws"\n      version = ">= 5.0"\n    }\n    old = "~> 1.0"\n  }\n}\n';
    const refs = refsOf(text);
    assert.deepEqual(refs.providers.map((p) => [p.name, p.legacy, p.version?.value]), [['aws', false, '>= 5.0'], ['old', true, '~> 1.0']]);
    const loc = locateString(text, refs, text.indexOf('>= 5.0') + 1)!;
    assert.equal(loc.info.target?.key, 'p:registry.opentofu.org/hashicorp/aws');
    assert.equal(targetOf(refs.providers[1]).target?.key, 'p:registry.opentofu.org/hashicorp/old');
  });

  it('reads JSON-syntax files the same way', () => {
    const text = '{"module": {"net": {"source": "corp/net/aws", "version": "~> 1.0"}}}';
    const refs = refsOf(text, 'main.tf.json');
    assert.equal(refs.modules.length, 1);
    assert.equal(refs.modules[0].version?.value, '~> 1.0');
  });

  it('only *.tf, *.tofu, *.tf.json and *.tofu.json files are ours', () => {
    for (const f of ['a/main.tf', 'x.tofu', 'a.tf.json', 'b.tofu.json']) assert.equal(isOurFileName(f), true, f);
    for (const f of ['terragrunt.hcl', 'x.pkr.hcl', 'a.json', 'main.tfvars', 'tf']) assert.equal(isOurFileName(f), false, f);
  });
});

describe('editor logic: completion', () => {
  it('lists versions newest first, prereleases last, preselects what tofu init selects', () => {
    const items = versionCompletions(VERSIONS, 'module', '');
    const versions = items.filter((i) => i.kind === 'version').map((i) => i.label);
    assert.deepEqual(versions, ['5.31.0', '5.30.0', '5.2.1', '4.9.0', '6.0.0-beta1']);
    assert.deepEqual(items.filter((i) => i.preselect).map((i) => i.label), ['5.31.0']);
    assert.equal(items.find((i) => i.label === '6.0.0-beta1')?.description, 'prerelease');
    assert.deepEqual(items.filter((i) => i.kind === 'constraint').map((i) => i.label), ['~> 5.31', '~> 5.31.0', '>= 5.31.0']);
    const sorted = [...items].sort((a, b) => a.sortText.localeCompare(b.sortText)).map((i) => i.label);
    assert.deepEqual(sorted, items.map((i) => i.label));
  });

  it('preselects under the typed constraint and keeps the typed operator', () => {
    const items = versionCompletions(VERSIONS, 'module', '~> 5.2.0');
    assert.deepEqual(items.filter((i) => i.preselect).map((i) => i.label), ['5.2.1']);
    assert.equal(items.find((i) => i.label === '5.30.0')?.insertText, '~> 5.30.0');
  });
});

describe('editor logic: hovers', () => {
  const text = 'module "net" {\n  source = "reg.example.com/corp/net/aws"\n  version = "~> 5.0"\n}\n';
  const ref = refsOf(text).modules[0];
  const target = targetOf(ref).target!;

  it('version hover: words, selected, newest, matches, major-version warning', () => {
    const h = versionHover({ target, constraint: '~> 4.0', versions: { value: VERSIONS }, networkAllowed: true });
    assert.match(h, /at least 4\.0\.0 and below 5\.0\.0/);
    assert.match(h, /Selected by `tofu init`: \*\*4\.9\.0\*\*/);
    assert.match(h, /Newest available: 5\.31\.0/);
    assert.match(h, /1 of 5 versions match: 4\.9\.0/);
    assert.match(h, /excludes newer major version 5\.31\.0/);
    const none = versionHover({ target, constraint: '~> 9.0', versions: { value: VERSIONS }, networkAllowed: true });
    assert.match(none, /No available version satisfies/);
    assert.match(versionHover({ target, constraint: '~> 5.0', versions: undefined, networkAllowed: false }), /untrusted/);
  });

  it('source hover: address parts, discovery, download location; non-registry kinds', () => {
    const h = sourceHover({
      source: 'x', target, moduleSource: targetOf(ref).moduleSource, networkAllowed: true, selected: '5.31.0',
      discovery: { value: { host: 'reg.example.com', url: 'https://r2.example.com/.well-known/terraform.json', redirectedTo: 'https://r2.example.com/.well-known/terraform.json', services: { 'modules.v1': 'https://reg.example.com/v1/modules/' } } },
      location: { value: 'git::https://git.example.com/net.git?ref=v5.31.0' },
    });
    assert.match(h, /\| reg\.example\.com \| corp \| net \| aws \|/);
    assert.match(h, /modules\.v1: `https:\/\/reg\.example\.com\/v1\/modules\/`/);
    assert.match(h, /redirected to/);
    assert.match(h, /git::https:\/\/git\.example\.com\/net\.git\?ref=v5\.31\.0/);
    // the download comes first and says why that version: the constraint selected it
    const withWhy = sourceHover({
      source: 'x', target, moduleSource: targetOf(ref).moduleSource, networkAllowed: true, selected: '5.31.0', constraint: '~> 5.0',
      discovery: { value: { host: 'reg.example.com', url: 'u', services: { 'modules.v1': 'https://reg.example.com/v1/modules/' } } },
      location: { value: 'https://dl.example.com/net-5.31.0.tgz' },
    });
    assert.match(withWhy, /\*\*Download\*\* of 5\.31\.0 \(for `version = "~> 5\.0"`\):\n\n`https:\/\/dl\.example\.com\/net-5\.31\.0\.tgz`/);
    assert.ok(withWhy.indexOf('**Download**') < withWhy.indexOf('**Service discovery**'), withWhy);
    assert.equal(sourceHover({ source: 'x', target, networkAllowed: false }).includes(NO_NETWORK), true);
    const local = refsOf('module "l" {\n  source = "./mod"\n}\n').modules[0];
    assert.match(sourceHover({ source: './mod', ...targetOf(local), networkAllowed: true }), /Local path/);
  });
});

describe('editor logic: diagnostics and fixes', () => {
  const text = [
    'module "a" {', '  source = "h.example/ns/a/aws"', '  version = "~> 9.0"', '}',
    'module "b" {', '  source = "h.example/ns/b/aws"', '}',
    'module "c" {', '  source = "h.example/ns/c/aws"', '  version = "1.0"', '}',
    'terraform {', '  required_providers {', '    p = {', '      source = "h.example/ns/p"', '      version = "v1.0"', '    }', '  }', '}', ''].join('\n');
  const refs = refsOf(text);

  it('unsatisfiable, missing version, not found, malformed; network failures are not diagnostics', () => {
    const answers: Record<string, Settled<string[]>> = {
      'm:h.example/ns/a/aws': { state: 'ok', value: VERSIONS, at: 0 },
      'm:h.example/ns/b/aws': { state: 'ok', value: VERSIONS, at: 0 },
      'm:h.example/ns/c/aws': { state: 'error', error: new RegistryError('not-found', 'h.example answered 404', { host: 'h.example', status: 404 }), at: 0 },
    };
    const r = computeDiagnostics(refs, (t) => answers[t.key], true);
    assert.deepEqual(r.diagnostics.map((d) => d.code), ['unsatisfiable', 'missing-version', 'not-found', 'malformed-constraint']);
    const msg = Object.fromEntries(r.diagnostics.map((d) => [d.code, d.message]));
    assert.equal(msg.unsatisfiable, 'No version of h.example/ns/a/aws satisfies "~> 9.0": the newest is 5.31.0');
    assert.equal(msg['missing-version'], 'No version constraint for h.example/ns/b/aws: tofu init takes the newest release (now 5.31.0); pin it, e.g. version = "~> 5.31"');
    assert.match(msg['not-found'], /^Module h\.example\/ns\/c\/aws not found: h\.example answered 404\. Check the address; .*no credentials for h\.example/);
    assert.equal(r.wanted.length, 0);
    const pending = computeDiagnostics(refs, () => undefined, true);
    assert.deepEqual(pending.wanted.map((t) => t.key), ['m:h.example/ns/a/aws', 'm:h.example/ns/b/aws', 'm:h.example/ns/c/aws']);
    const offline = computeDiagnostics(refs, () => ({ state: 'error', error: new RegistryError('timeout', 'timed out', { host: 'h.example' }), at: 0 }), true);
    assert.deepEqual(offline.diagnostics.map((d) => d.code), ['malformed-constraint']);
    assert.equal(offline.network.length, 3);
    const untrusted = computeDiagnostics(refs, () => { throw new Error('must not be asked'); }, false);
    assert.deepEqual(untrusted.wanted, []);
  });

  it('an unresolvable private host is an unknown-host error; the public registry offline is a network problem', () => {
    const text = 'module "pub" {\n  source  = "terraform-aws-modules/vpc/aws"\n  version = "~> 5.0"\n}\n' +
      'module "priv" {\n  source  = "registy.corp.example/ns/net/aws"\n  version = "~> 1.0"\n}\n';
    const dnsFailure = (host: string) => new RegistryError('network', `cannot resolve host ${host} (https://${host}/.well-known/terraform.json)`, { host });
    const r = computeDiagnostics(refsOf(text), (t) => ({ state: 'error', error: dnsFailure(t.host), at: 0 }), true);
    assert.deepEqual(r.diagnostics.map((d) => [d.code, d.severity]), [['unknown-host', 'error']]);
    assert.match(r.diagnostics[0].message, /^Unknown registry host registy\.corp\.example: cannot resolve host/);
    assert.deepEqual(r.network.map((n) => n.host), ['registry.opentofu.org']);
    assert.match(r.network[0].message, /Offline or air-gapped\?.*provider_installation.*tofuRegistry\.cliConfigFile/);
  });

  it('auth errors name the credentials setting', () => {
    const r = computeDiagnostics(refs, () => ({ state: 'error', error: new RegistryError('unauthorized', 'h.example requires authentication (401 Unauthorized)', { host: 'h.example', status: 401 }), at: 0 }), true);
    const auth = r.diagnostics.filter((d) => d.code === 'auth');
    assert.equal(auth.length, 3);
    assert.match(auth[0].message, /tofuRegistry\.cliConfigFile/);
    assert.match(auth[0].message, /TF_TOKEN_h_example/);
  });

  it('update constraint keeps the operator style', () => {
    assert.equal(updateConstraint('~> 4.0', '5.31.0', 'module'), '~> 5.31');
    assert.equal(updateConstraint('~> 4.9.0', '5.31.0', 'module'), '~> 5.31.0');
    assert.equal(updateConstraint('4.9.0', '5.31.0', 'module'), '5.31.0');
    assert.equal(updateConstraint('= 4.9.0', '5.31.0', 'provider'), '= 5.31.0');
    assert.equal(updateConstraint('>= 4.0, < 5.0', '5.31.0', 'provider'), '>= 4.0, < 6.0.0');
  });

  it('update constraint keeps all parts of a 4-part module version (go-version "~>")', () => {
    // "~> 1.2.3.4" pins 1.2.3.x; cut to three parts it would widen to 1.2.x
    assert.equal(updateConstraint('~> 1.2.3.4', '1.2.3.9', 'module'), '~> 1.2.3.9');
    assert.equal(updateConstraint('~> 1.2.3.4', '1.3.0.1', 'module'), '~> 1.3.0.1');
    // a newest version with fewer parts keeps as many as it has
    assert.equal(updateConstraint('~> 1.2.3.4', '1.3.0', 'module'), '~> 1.3.0');
    assert.equal(updateConstraint('~> 1.2', '1.3.0.1', 'module'), '~> 1.3');
    const refs4 = refsOf('module "f" {\n  source = "h.example/ns/f/aws"\n  version = "~> 1.2.3.4"\n}\n');
    const [fix] = fixesFor(refs4.modules[0], ['1.2.3.4', '1.2.4.1'], 'module');
    assert.equal(fix.newText, '~> 1.2.4.1');
    assert.deepEqual(selectVersions(['1.2.4.1', '1.2.4.7', '1.2.5.0'], fix.newText, 'module').matching, ['1.2.4.7', '1.2.4.1']);
  });

  it('fixes: update for an outdated constraint, add-version when missing', () => {
    const [upd] = fixesFor(refs.modules[0], VERSIONS, 'module');
    assert.equal(upd.kind, 'update-constraint');
    assert.equal(upd.newText, '~> 5.31');
    assert.equal(text.slice(upd.range.start.offset, upd.range.end.offset), '~> 9.0');
    // "~> 9.0" matches nothing: the fix is a change, not an upgrade to a "newer" version
    assert.equal(upd.lens, 'no version satisfies "~> 9.0" → change constraint to "~> 5.31"');
    assert.equal(upd.title, 'Change constraint to "~> 5.31" (nothing satisfies "~> 9.0"; newest 5.31.0)');
    const outdated = refsOf('module "o" {\n  source = "h.example/ns/o/aws"\n  version = "~> 4.0"\n}\n');
    const [up] = fixesFor(outdated.modules[0], VERSIONS, 'module');
    assert.equal(up.lens, 'newer version available: 5.31.0 → update constraint');
    assert.equal(up.title, 'Update constraint to "~> 5.31" (newest 5.31.0; currently selects 4.9.0)');
    const [add] = fixesFor(refs.modules[1], VERSIONS, 'module');
    assert.equal(add.kind, 'add-version');
    const edited = text.slice(0, add.range.start.offset) + add.newText + text.slice(add.range.end.offset);
    assert.ok(edited.includes('  source = "h.example/ns/b/aws"\n  version = "~> 5.31"\n}'), edited);
    assert.deepEqual(fixesFor(refs.modules[0], ['9.0.1'], 'module'), []);
  });
});

describe('editor logic: built-in providers and absolute-path module sources', () => {
  const never = (): Settled<string[]> => { throw new Error('a built-in provider must never be looked up'); };

  it('terraform.io/builtin/terraform (and the implied "terraform") gets no target, no request, no diagnostic', () => {
    const text = 'terraform {\n  required_providers {\n    terraform = {\n      source = "terraform.io/builtin/terraform"\n    }\n' +
      '    tf2 = { source = "Terraform.IO/BuiltIn/Terraform", version = ">= 1.0" }\n' +
      '  }\n}\nterraform {\n  required_providers {\n    terraform = ">= 1.0"\n  }\n}\n';
    const refs = refsOf(text);
    assert.equal(refs.providers.length, 3);
    for (const p of refs.providers) {
      const info = targetOf(p);
      assert.equal(info.target, undefined, p.name);
      assert.equal(info.error, undefined, p.name);
      assert.equal(info.builtIn?.address, 'terraform.io/builtin/terraform', p.name);
    }
    const r = computeDiagnostics(refs, never, true);
    assert.deepEqual(r, { diagnostics: [], wanted: [], network: [] });
    // completion inside the version string: nothing to ask the registry about
    const loc = locateString(text, refs, text.indexOf('>= 1.0') + 2)!;
    assert.equal(loc.info.target, undefined);
    assert.equal(loc.info.builtIn?.address, 'terraform.io/builtin/terraform');
    // the text fallback (a string being typed) classifies the same way
    const typing = 'terraform {\n  required_providers {\n    terraform = {\n      version = ">= 1.\n      source = "terraform.io/builtin/terraform"\n    }\n  }\n}\n';
    const t2 = locateString(typing, refsOf(typing), typing.indexOf('>= 1.') + 2)!;
    assert.equal(t2.info.target, undefined);
    assert.equal(t2.info.builtIn?.address, 'terraform.io/builtin/terraform');
  });

  it('the built-in provider hover says it is built into OpenTofu; a registry "terraform" provider still is looked up', () => {
    const text = 'terraform {\n  required_providers {\n    terraform = { source = "terraform.io/builtin/terraform" }\n    old = { source = "hashicorp/terraform" }\n  }\n}\n';
    const refs = refsOf(text);
    const info = targetOf(refs.providers[0]);
    const h = sourceHover({ source: 'terraform.io/builtin/terraform', ...info, networkAllowed: true });
    assert.match(h, /^\*\*Built-in provider\*\* `terraform\.io\/builtin\/terraform`/);
    assert.match(h, /Built into OpenTofu: `tofu init` never installs it from a registry/);
    assert.doesNotMatch(h, /Service discovery/);
    const other = targetOf(refs.providers[1]);
    assert.equal(other.target?.key, 'p:registry.opentofu.org/hashicorp/terraform');
    assert.deepEqual(computeDiagnostics(refs, () => undefined, true).wanted.map((t) => t.key), ['p:registry.opentofu.org/hashicorp/terraform']);
  });

  it('an absolute-path module source is a file source: no error diagnostic, hover names it and its subdir', () => {
    const text = 'module "abs" {\n  source = "/srv/modules//net/vpc"\n}\nmodule "plain" {\n  source = "/srv/modules/net"\n}\n';
    const refs = refsOf(text);
    const info = targetOf(refs.modules[0]);
    assert.equal(info.target, undefined);
    assert.equal(info.error, undefined);
    assert.equal(info.moduleSource?.kind, 'file');
    assert.deepEqual(computeDiagnostics(refs, never, true), { diagnostics: [], wanted: [], network: [] });
    const h = sourceHover({ source: '/srv/modules//net/vpc', ...info, networkAllowed: true });
    assert.match(h, /^\*\*Absolute path\*\* `\/srv\/modules`: not a local source \(those begin with `\.\/` or `\.\.\/`\); `tofu init` copies the directory like a remote package/);
    assert.match(h, /Subdirectory: `net\/vpc`/);
    assert.doesNotMatch(h, /\$\(error\)/);
    const plain = sourceHover({ source: '/srv/modules/net', ...targetOf(refs.modules[1]), networkAllowed: true });
    assert.match(plain, /\*\*Absolute path\*\* `\/srv\/modules\/net`/);
    assert.doesNotMatch(plain, /Subdirectory/);
    // escaping the package with ".." stays an error, as in OpenTofu
    const bad = refsOf('module "x" {\n  source = "/srv/m//../up"\n}\n');
    assert.deepEqual(computeDiagnostics(bad, never, true).diagnostics.map((d) => [d.code, d.message]),
      [['invalid-source', 'subdirectory path "../up" leads outside of the module package']]);
  });
});
