// The order of an OCI repository's tags for completion and `versions oci://`: version-like tags
// ("v" allowed) newest first by version (1.10.0 after 1.9.0, not by text), prereleases marked where
// their version sorts, then other tags by name; the tag tofu init would use marked.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { newestOciTag, ociTagOrder } from '../../../src/engine/modulepkg/oci-registry';

test('ociTagOrder: version-like newest first, prereleases marked, others after, the selected tag marked', () => {
  const order = ociTagOrder(['latest', '1.0.0', 'v1.10.0', '1.2.0-beta.1', '1.2.0', 'nightly', '1.9.0', 'v1.9.0', '1.0.0']);
  assert.deepEqual(order.map((t) => [t.tag, t.version ?? null, t.prerelease, t.selected]), [
    ['v1.10.0', '1.10.0', false, false],
    ['1.9.0', '1.9.0', false, false],
    ['v1.9.0', '1.9.0', false, false],
    ['1.2.0', '1.2.0', false, false],
    ['1.2.0-beta.1', '1.2.0-beta.1', true, false],
    ['1.0.0', '1.0.0', false, false],
    ['latest', null, false, true],
    ['nightly', null, false, false],
  ]);
  assert.equal(newestOciTag(order), 'v1.10.0');
  assert.deepEqual(ociTagOrder(['2.0.0-rc.1', 'main'], 'main').map((t) => t.selected), [false, true]);
  assert.equal(newestOciTag(ociTagOrder(['2.0.0-rc.1', 'main'])), null, 'a prerelease is never "newest"');
});
