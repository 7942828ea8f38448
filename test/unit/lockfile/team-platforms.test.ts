// The team's platforms (tofuRegistry.lock.platforms; mirror.platforms follows the same rule): the
// setting's valid os_arch entries, else the current platform plus linux_amd64 — and the current
// platform in Go's spelling, as tofu names it. Pure functions: the editor only reads the setting.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { currentPlatform, defaultPlatforms, platformsSetting } from '../../../src/engine/mirror';
import { HOST_PLATFORM } from '../../support/platform';

test('currentPlatform: Node.js platform/arch in Go\'s GOOS_GOARCH spelling (this machine by default)', () => {
  assert.equal(currentPlatform(), HOST_PLATFORM);
  for (const [platform, arch, want] of [
    ['linux', 'x64', 'linux_amd64'], ['darwin', 'arm64', 'darwin_arm64'], ['win32', 'x64', 'windows_amd64'],
    ['linux', 'ia32', 'linux_386'], ['linux', 'arm', 'linux_arm'], ['freebsd', 'x64', 'freebsd_amd64'], ['sunos', 'x64', 'solaris_amd64'],
  ]) assert.equal(currentPlatform(platform, arch), want, `${platform} ${arch}`);
});

test('unset, empty or invalid setting: the current platform plus linux_amd64, once each', () => {
  for (const unset of [undefined, null, [], 'linux_amd64', ['Linux-AMD64', 42, '', 'linux']]) {
    assert.deepEqual(platformsSetting(unset, 'darwin_arm64'), ['darwin_arm64', 'linux_amd64'], JSON.stringify(unset));
    assert.deepEqual(platformsSetting(unset, 'windows_amd64'), ['windows_amd64', 'linux_amd64'], JSON.stringify(unset));
    assert.deepEqual(platformsSetting(unset, 'linux_amd64'), ['linux_amd64'], JSON.stringify(unset));
    assert.deepEqual(platformsSetting(unset), [...new Set([HOST_PLATFORM, 'linux_amd64'])], `${JSON.stringify(unset)} on this machine`);
  }
  assert.deepEqual(defaultPlatforms('darwin_arm64'), ['darwin_arm64', 'linux_amd64']);
  assert.deepEqual(defaultPlatforms(), [...new Set([HOST_PLATFORM, 'linux_amd64'])]);
});

test('a set value: its valid entries only, deduplicated in order, without the default added', () => {
  assert.deepEqual(platformsSetting(['windows_amd64', 'darwin_arm64', 'windows_amd64'], 'darwin_arm64'), ['windows_amd64', 'darwin_arm64']);
  assert.deepEqual(platformsSetting(['freebsd_amd64', 'Linux-AMD64', 7, 'darwin_arm64'], 'linux_amd64'), ['freebsd_amd64', 'darwin_arm64']);
});
