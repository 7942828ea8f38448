// semver's order of prerelease identifiers (numeric ones numerically, below alphanumeric ones), from
// the module of semver that holds it rather than the package's index: the index requires all of
// semver — ranges, comparators, the ≈ 40 regular expressions built at load — for this one function,
// on every CLI start and activation (≈ 2 ms, and ≈ 30 KiB less to compile in each bundle).
// (semver has no "exports" map: the file is reachable, and it has been there since semver 7.0.)
// eslint-disable-next-line @typescript-eslint/no-require-imports
const identifiers = require('semver/internal/identifiers') as Pick<typeof import('semver'), 'compareIdentifiers'>;

export const compareIdentifiers: (a: string, b: string) => 1 | 0 | -1 = identifiers.compareIdentifiers;
