// The machine's platform as tofu spells it (Go's GOOS_GOARCH), worked out here on its own so that
// tests do not take the code under test's word for it.
const GOOS: Record<string, string> = { win32: 'windows', darwin: 'darwin', linux: 'linux', freebsd: 'freebsd', openbsd: 'openbsd', sunos: 'solaris' };
const GOARCH: Record<string, string> = { x64: 'amd64', arm64: 'arm64', ia32: '386', arm: 'arm' };

export const HOST_PLATFORM = `${GOOS[process.platform] ?? process.platform}_${GOARCH[process.arch] ?? process.arch}`;
