// The settings both adapters read through src/features/settings.ts: the language server takes the
// extension's names and defaults (package.json contributes.configuration), from a nested or a
// dotted settings object.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_MAX_CONFIG_DIRS, platformsSetting } from '../../../src/engine/mirror';
import { FeatureSettings, objectReader, settingsFrom } from '../../../src/features/settings';

const ROOT = join(__dirname, '../../../..');
const properties = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).contributes.configuration.properties as Record<string, { default: unknown }>;

/** Setting name → the field it fills and how its package.json default reads there. */
const FIELDS: Record<string, [keyof FeatureSettings, (dflt: unknown) => unknown]> = {
  cacheTtlMinutes: ['cacheTtlMinutes', (d) => d],
  requestTimeoutSeconds: ['requestTimeoutSeconds', (d) => d],
  caFile: ['caFile', (d) => d],
  proxy: ['proxy', (d) => d],
  cliConfigFile: ['cliConfigFile', (d) => d],
  'diagnostics.enabled': ['diagnosticsEnabled', (d) => d],
  'diagnostics.debounceMs': ['diagnosticsDebounceMs', (d) => d],
  'codeLens.enabled': ['codeLensEnabled', (d) => d],
  'mirror.platforms': ['mirrorPlatforms', (d) => platformsSetting(d)],
  'lock.platforms': ['lockPlatforms', (d) => platformsSetting(d)],
  'mirror.concurrency': ['mirrorConcurrency', (d) => d],
  maxConfigDirs: ['maxConfigDirs', (d) => (d === DEFAULT_MAX_CONFIG_DIRS ? undefined : d)],
  'oci.providerRepositoryTemplate': ['ociProviderRepositoryTemplate', (d) => d],
};
/** The extension's own: a status bar the language server has no place for. */
const EDITOR_ONLY = new Set(['dependencies.statusBar']);

test('every extension setting has the same default in the features layer (the language server\'s), or is the editor\'s own', () => {
  const dflt = settingsFrom(objectReader({}));
  const names = Object.keys(properties).map((k) => k.replace(/^tofuRegistry\./, ''));
  assert.ok(names.length >= 13, names.join(', '));
  for (const name of names) {
    if (EDITOR_ONLY.has(name)) continue;
    const f = FIELDS[name];
    assert.ok(f, `tofuRegistry.${name}: read by the features layer (add it to settingsFrom) or listed as editor-only`);
    assert.deepEqual(dflt[f[0]], f[1](properties[`tofuRegistry.${name}`].default), `tofuRegistry.${name}`);
  }
  assert.equal(dflt.offline, false, 'the language server\'s own offline setting is off by default');
});

test('nested and dotted settings objects read the same; bounds as in the extension', () => {
  const nested = settingsFrom(objectReader({ diagnostics: { enabled: false, debounceMs: 20 }, lock: { platforms: ['linux_arm64'] }, caFile: ' /ca.pem ', offline: true }));
  const dotted = settingsFrom(objectReader({ 'diagnostics.enabled': false, 'diagnostics.debounceMs': 20, 'lock.platforms': ['linux_arm64'], caFile: '/ca.pem', offline: true }));
  assert.deepEqual(nested, dotted);
  assert.deepEqual([nested.diagnosticsEnabled, nested.diagnosticsDebounceMs, nested.lockPlatforms, nested.caFile, nested.offline], [false, 20, ['linux_arm64'], '/ca.pem', true]);
  const odd = settingsFrom(objectReader({ requestTimeoutSeconds: 0, cacheTtlMinutes: -5, mirror: { concurrency: 500 }, maxConfigDirs: 0, codeLens: { enabled: 'yes' } }));
  assert.deepEqual([odd.requestTimeoutSeconds, odd.cacheTtlMinutes, odd.mirrorConcurrency, odd.maxConfigDirs, odd.codeLensEnabled], [1, 0, 64, undefined, true]);
  assert.deepEqual(settingsFrom(objectReader(null)), settingsFrom(objectReader({})), 'no settings: the defaults');
});
