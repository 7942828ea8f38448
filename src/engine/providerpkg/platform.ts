// Provider platforms ("os_arch", Go's GOOS_GOARCH): the current machine's, the defaults, a setting's.

const PLATFORM_RE = /^[a-z0-9]+_[a-z0-9]+$/;

/** True for an `os_arch` platform (e.g. `linux_amd64`). */
export function isPlatform(platform: string): boolean {
  return PLATFORM_RE.test(platform);
}

/** `os_arch` of the machine running us (or of the Node.js platform/arch given), in Go's GOOS/GOARCH spelling. */
export function currentPlatform(platform: string = process.platform, nodeArch: string = process.arch): string {
  const os = ({ win32: 'windows', darwin: 'darwin', linux: 'linux', freebsd: 'freebsd', openbsd: 'openbsd', sunos: 'solaris' } as Record<string, string>)[platform] ?? platform;
  const arch = ({ x64: 'amd64', ia32: '386', arm64: 'arm64', arm: 'arm', ppc64: 'ppc64le', s390x: 's390x' } as Record<string, string>)[nodeArch] ?? nodeArch;
  return `${os}_${arch}`;
}

/** The default target platforms: the current one plus linux_amd64 (deduplicated). */
export function defaultPlatforms(current = currentPlatform()): string[] {
  return [...new Set([current, 'linux_amd64'])];
}

/**
 * The platforms of a setting (tofuRegistry.lock.platforms, tofuRegistry.mirror.platforms): its
 * os_arch entries, deduplicated in order; anything else is ignored (a hand-edited settings.json
 * is not validated), and none at all means defaultPlatforms().
 */
export function platformsSetting(configured: unknown, current = currentPlatform()): string[] {
  const valid = Array.isArray(configured) ? configured.filter((p): p is string => typeof p === 'string' && isPlatform(p)) : [];
  return valid.length ? [...new Set(valid)] : defaultPlatforms(current);
}

