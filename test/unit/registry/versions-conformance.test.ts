// Conformance tables: cases taken from the test tables of the libraries OpenTofu uses, written as
// data here. Modules follow hashicorp/go-version (constraint_test.go, version_test.go) plus the
// prerelease rule of internal/initwd/module_install.go; providers follow apparentlymart/go-versions
// (constraints/ruby_style_test.go, constraints/version_test.go, set_test.go, parse_test.go) behind
// the go-version check tofu's config decoder applies to every `version` argument first.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compareVersions, matchesConstraint, parseConstraint, parseVersion, selectVersions, ParsedVersion, VersionRules } from '../../../src/engine/versions';

const pv = (s: string, r: VersionRules) => {
  const v = parseVersion(s, r);
  assert.notEqual(typeof v, 'string', `${s} should parse (${r}): ${v}`);
  return v as ParsedVersion;
};
const check = (rules: VersionRules, table: Array<[string, string, boolean]>) => {
  for (const [c, ver, want] of table) {
    assert.equal(matchesConstraint(pv(ver, rules), parseConstraint(c, rules)), want, `${rules}: ${ver} ${want ? 'should' : 'should not'} match "${c}"`);
  }
};

// go-version TestNewVersion: [input, valid]
const GO_VERSION_PARSE: Array<[string, boolean]> = [
  ['', false], ['1.2.3', true], ['1.0', true], ['1', true], ['1.2.beta', false], ['1.21.beta', false], ['foo', false],
  ['1.2-5', true], ['1.2-beta.5', true], ['\n1.2', false], ['1.2.0-x.Y.0+metadata', true],
  ['1.2.0-x.Y.0+metadata-width-hyphen', true], ['1.2.3-rc1-with-hyphen', true], ['1.2.3.4', true],
  ['1.2.0.4-x.Y.0+metadata', true], ['1.2.0.4-x.Y.0+metadata-width-hyphen', true], ['1.2.0-X-1.2.0+metadata~dist', true],
  ['1.2.3.4-rc1-with-hyphen', true], ['v1.2.3', true], ['foo1.2.3', false], ['1.7rc2', true], ['v1.7rc2', true], ['1.0-', true],
  ['11387778780781445675529500000000000000000', false], // out of int64 range (TestNewConstraint)
  [' 1.2.3', false], // go-version does not trim
];

// go-version prerelease/metadata/segment extraction: [input, prerelease, build, canonical]
const GO_VERSION_PARTS: Array<[string, string, string, string]> = [
  ['1.2-beta', 'beta', '', '1.2.0-beta'], ['1.2.0-x.Y.0', 'x.Y.0', '', '1.2.0-x.Y.0'], ['1.2.0-7.Y.0', '7.Y.0', '', '1.2.0-7.Y.0'],
  ['1.2.0-x.Y.0+metadata', 'x.Y.0', 'metadata', '1.2.0-x.Y.0'], ['1.2.0-metadata-1.2.0+metadata~dist', 'metadata-1.2.0', 'metadata~dist', '1.2.0-metadata-1.2.0'],
  ['17.03.0-ce', 'ce', '', '17.3.0-ce'], ['1-x.Y.0', 'x.Y.0', '', '1.0.0-x.Y.0'], ['3.4.5alpha1', 'alpha1', '', '3.4.5-alpha1'],
  ['1.0-', '-', '', '1.0.0--'],
];

// go-version TestVersionCompare + TestComparePreReleases (+ the Equal/GreaterThan/LessThan tables, same pairs)
const GO_VERSION_COMPARE: Array<[string, string, number]> = [
  ['1.2.3', '1.4.5', -1], ['1.2-beta', '1.2-beta', 0], ['1.2', '1.1.4', 1], ['1.2', '1.2-beta', 1], ['1.2+foo', '1.2+beta', 0],
  ['v1.2', 'v1.2-beta', 1], ['v1.2+foo', 'v1.2+beta', 0], ['v1.2.3.4', 'v1.2.3.4', 0], ['v1.2.0.0', 'v1.2', 0],
  ['v1.2.0.0.1', 'v1.2', 1], ['v1.2', 'v1.2.0.0', 0], ['v1.2', 'v1.2.0.0.1', -1], ['v1.2.0.0', 'v1.2.0.0.1', -1],
  ['v1.2.3.0', 'v1.2.3.4', -1], ['1.7rc2', '1.7rc1', 1], ['1.7rc2', '1.7', -1], ['1.2.0', '1.2.0-X-1.2.0+metadata~dist', 1],
  ['1.0.2alpha', '1.0.2-alpha', 0], ['v1.2', 'v1.2+meta', 0], ['v1.0.3-', 'v1.0.3', -1],
  ['1.2-beta.2', '1.2-beta.2', 0], ['1.2-beta.1', '1.2-beta.2', -1], ['1.2-beta.2', '1.2-beta.11', -1], ['3.2-alpha.1', '3.2-alpha', 1],
  ['1.2-beta.2', '1.2-beta.1', 1], ['1.2-beta.11', '1.2-beta.2', 1], ['1.2-beta', '1.2-beta.3', -1], ['1.2-alpha', '1.2-beta.3', -1],
  ['1.2-beta', '1.2-alpha.3', 1], ['3.0-alpha.3', '3.0-rc.1', -1], ['3.0-alpha3', '3.0-rc1', -1], ['3.0-alpha.1', '3.0-alpha.beta', -1],
  ['5.4-alpha', '5.4-alpha.beta', 1], // go-version, unlike semver, ranks a missing part above a word
  ['v1.2-beta.2', 'v1.2-beta.2', 0], ['v1.2-beta.1', 'v1.2-beta.2', -1], ['v3.2-alpha.1', 'v3.2-alpha', 1], ['v3.2-rc.1-1-g123', 'v3.2-rc.2', 1],
  ['1.2.3-beta', '1.2.3.0', 0], // different part counts: go-version compares the numbers only
];

// go-version TestConstraintCheck (+ TestNewConstraint successes)
const GO_VERSION_CHECK: Array<[string, string, boolean]> = [
  ['>= 1.0, < 1.2', '1.1.5', true], ['< 1.0, < 1.2', '1.1.5', false], ['= 1.0', '1.1.5', false], ['= 1.0', '1.0.0', true], ['1.0', '1.0.0', true],
  ['~> 1.0', '2.0', false], ['~> 1.0', '1.1', true], ['~> 1.0', '1.2.3', true], ['~> 1.0.0', '1.2.3', false], ['~> 1.0.0', '1.0.7', true],
  ['~> 1.0.0', '1.1.0', false], ['~> 1.0.7', '1.0.4', false], ['~> 1.0.7', '1.0.7', true], ['~> 1.0.7', '1.0.8', true],
  ['~> 1.0.7', '1.0.7.5', true], ['~> 1.0.7', '1.0.6.99', false], ['~> 1.0.7', '1.0.8.0', true], ['~> 1.0.9.5', '1.0.9.5', true],
  ['~> 1.0.9.5', '1.0.9.4', false], ['~> 1.0.9.5', '1.0.9.6', true], ['~> 1.0.9.5', '1.0.9.5.0', true], ['~> 1.0.9.5', '1.0.9.5.1', true],
  ['~> 2.0', '2.1.0-beta', false], ['~> 2.1.0-a', '2.2.0', false], ['~> 2.1.0-a', '2.1.0', false], ['~> 2.1.0-a', '2.1.0-beta', true],
  ['~> 2.1.0-a', '2.2.0-alpha', false], ['> 2.0', '2.1.0-beta', false], ['>= 2.1.0-a', '2.1.0-beta', true], ['>= 2.1.0-a', '2.1.1-beta', false],
  ['>= 2.0.0', '2.1.0-beta', false], ['>= 2.1.0-a', '2.1.1', true], ['>= 2.1.0-a', '2.1.0', true], ['<= 2.1.0-a', '2.0.0', true],
  ['>= 1.2', '1.2.0', true], ['>= 1.2, < 1.0', '1.1.0', false],
  // TestConstraintEqual: whitespace and an explicit "=" are the same constraint
  [' 0.0.1 ', '0.0.1', true], ['=0.0.1 ', '0.0.1', true], ['>0.1.0, <=1.0.0', '1.0.0', true], ['<=1.0.0, >0.1.0', '0.1.0', false],
  // the same prerelease rule with a 4-part constraint: parts must match in number too
  ['~> 2.1-a', '2.1.5-beta', false], ['>= 1.2.3.1-a', '1.2.3.2-b', false],
];
const GO_VERSION_BAD_CONSTRAINTS = ['>= 1.x', '11387778780781445675529500000000000000000', '', '1.0,', '=> 1.0', '1.0 2.0'];

test('conformance: go-version version parsing (modules)', () => {
  for (const [s, ok] of GO_VERSION_PARSE) assert.equal(typeof parseVersion(s, 'module') !== 'string', ok, JSON.stringify(s));
  for (const [s, pre, build, canonical] of GO_VERSION_PARTS) {
    const v = pv(s, 'module');
    assert.deepEqual([v.prerelease, v.build, v.canonical], [pre, build, canonical], s);
  }
  assert.deepEqual(pv('1.4.9223372036854775807', 'module').segments.length, 3);
});

test('conformance: go-version ordering (modules)', () => {
  for (const [a, b, want] of GO_VERSION_COMPARE) {
    assert.equal(compareVersions(pv(a, 'module'), pv(b, 'module')), want, `${a} <=> ${b}`);
    assert.equal(compareVersions(pv(b, 'module'), pv(a, 'module')), want === 0 ? 0 : -want, `${b} <=> ${a}`);
  }
});

test('conformance: go-version constraint checks (modules)', () => {
  check('module', GO_VERSION_CHECK);
  for (const bad of GO_VERSION_BAD_CONSTRAINTS) assert.throws(() => parseConstraint(bad, 'module'), JSON.stringify(bad));
});

// OpenTofu initwd TestModuleInstaller_Prerelease (registry: 0.0.3-alpha.1, 0.0.2, 0.0.1) + the npm-style
// re-parse it relies on: [constraint, selected or null]
const TOFU_MODULE_PRERELEASE: Array<[string, string | null]> = [
  ['0.0.3-alpha.1', '0.0.3-alpha.1'], ['v0.0.3-alpha.1', '0.0.3-alpha.1'], ['=0.0.3-alpha.1', '0.0.3-alpha.1'],
  ['=v0.0.3-alpha.1', '0.0.3-alpha.1'], ['>=0.0.2-alpha.1', '0.0.2'], ['>=v0.0.2-alpha.1', '0.0.2'],
  ['0.0.3-alpha.1, >=0.0.2', null], ['>=0.0.3-alpha.1', null], ['>=v0.0.3-alpha.1', null],
  ['= 0.0.3-alpha.1', null], // canon-style parser: "no spaces allowed after operator"
  [' 0.0.3-alpha.1 ', '0.0.3-alpha.1'],
];

test('conformance: tofu init module prerelease selection', () => {
  for (const [c, want] of TOFU_MODULE_PRERELEASE) {
    assert.equal(selectVersions(['0.0.3-alpha.1', '0.0.2', '0.0.1'], c, 'module').selected, want, JSON.stringify(c));
  }
  // the registry's version must survive go-versions' parser (three parts, no "~"), metadata must match exactly
  assert.equal(selectVersions(['1.0.0-beta~1'], '1.0.0-beta~1', 'module').selected, null);
  assert.equal(selectVersions(['1.0.0beta'], '1.0.0-beta', 'module').selected, '1.0.0beta');
  assert.equal(selectVersions(['1.0.0-beta+abc'], '1.0.0-beta', 'module').selected, null);
  assert.equal(selectVersions(['1.0.0-beta+abc'], '1.0.0-beta+abc', 'module').selected, '1.0.0-beta+abc');
});

// go-versions ParseRubyStyle / ParseRubyStyleMulti: [input, error pattern or null]
const RUBY_PARSE: Array<[string, RegExp | null]> = [
  ['', /empty/], ['1', null], ['1.1', null], ['1.1.1', null], ['1.0.0.0', /too many numbered portions/],
  ['v1.0.0', /"v" prefix/], ['>= v1.0.0', /"v" prefix/], ['1.0.0-beta2', null], ['1.0-beta2', null], ['1.0.0-beta.2', null],
  ['1.0.0+foo', null], ['1.0.0+foo.bar', null], ['1.0.0-beta1+foo.bar', null], ['> 1.1.1', null], ['>1.1.1', null],
  ['>= 1.1.1', null], ['>=1.1.1', null], ['=> 1.1.1', /did you mean ">="/], ['=>1.1.1', /did you mean ">="/], ['< 1.1.1', null],
  ['<= 1.1.1', null], ['=< 1.1.1', /did you mean "<="/], ['~> 1.1.1', null], ['~> 1.1', null], ['~> 1', null], ['= 1.1.1', null],
  ['!= 1.1.1', null], ['=  1.1.1', /only one space/], ['garbage', /invalid/], ['& 1.1.0', /invalid constraint operator "&"/],
  ['1.*.*', /wildcard/], ['1.0.x', /wildcard/], ['1.0 || 2.0', /./], ['1.0.0 - 2.0.0', /./],
  ['~> v1.1.1', /"v" prefix/], ['>= 1.0, < v2.0', /"v" prefix/], ['>= 1.0, < 2', null], ['>= 1.0 < 2', /missing comma after ">= 1.0"/],
  ['~>\t1.0', /only one space/], ['1.0.0-', /./], ['1.0.0-beta..1', /./], // the last one go-version refuses
];

// go-versions MeetingConstraints / set_test (prereleases only when requested exactly, ~> bounds, != and metadata)
const RUBY_MATCH: Array<[string, string, boolean]> = [
  ['1.0.0', '1.0.0', true], ['= 1.0.0', '1.0.0', true], ['!= 1.0.0', '1.0.0', false], ['!= 1.0.0', '1.0.1', true],
  ['> 1.0.0', '1.0.1', true], ['> 1.0', '1.0.0', false], ['< 1.0.0', '0.9.9', true], ['>= 1.0.0', '1.0.0', true], ['<= 1.0.0', '1.0.1', false],
  ['~> 1.2.3', '1.2.3', true], ['~> 1.2.3', '1.2.5', true], ['~> 1.2.3', '1.3.0', false], ['~> 1.2', '1.2.3', true], ['~> 1.2', '1.3.0', true],
  ['~> 1.2', '2.0.0', false], ['~> 1', '1.3.0', true], ['~> 1', '2.0.0', false], ['>= 1, < 2', '1.9.9', true], ['>= 1, < 2', '2.0.0', false],
  ['1.0.0, 2.0.0', '1.0.0', false], ['1.0.0, 1.0.0', '1.0.0', true], ['1.0.0, != 1.0.0', '1.0.0', false],
  ['>= 1.0.0', '0.0.1', false], ['1.0.0+foo', '1.0.0+foo', true], ['1.0.0+foo', '1.0.0', false], ['1.0.0', '1.0.0+foo', false],
  ['!= 1.0.0', '1.0.0+foo', true], ['>= 1.0.0+foo', '1.0.0', true],
];
const RUBY_SELECT: Array<[string, string[], string | null]> = [
  ['>= 1.0.0', ['1.0.0-beta1'], null], ['>= 1.0.0', ['2.0.0-beta1'], null], ['2.0.0-beta1', ['2.0.0-beta1'], '2.0.0-beta1'],
  ['!= 2.0.0-beta1, 2.0.0-beta1', ['2.0.0-beta1'], null], ['>= 1.0, 2.0.0-beta1', ['2.0.0-beta1', '1.5.0'], '2.0.0-beta1'],
  ['>= 3.0, 2.0.0-beta1', ['2.0.0-beta1', '1.5.0'], null], ['>= 0.0.0', ['0.0.0', '0.0.1'], '0.0.1'], ['0.0.0', ['0.0.0'], null],
];

test('conformance: go-versions constraint syntax (providers)', () => {
  for (const [c, err] of RUBY_PARSE) {
    if (err) assert.throws(() => parseConstraint(c, 'provider'), err, JSON.stringify(c));
    else assert.doesNotThrow(() => parseConstraint(c, 'provider'), JSON.stringify(c));
  }
  // ParseExactVersion
  for (const [s, ok] of [['1', true], ['1.1', true], ['1.0.0.0', false], ['v1.0.0', false], ['1.0-beta2', true], ['1.0.0+foo.bar', true],
    ['> 1.1.1', false], ['garbage', false], ['1.0.x', false], ['1.0.0, 2.0.0', false], ['', false]] as Array<[string, boolean]>) {
    assert.equal(typeof parseVersion(s, 'provider') !== 'string', ok, JSON.stringify(s));
  }
  assert.equal(pv('1.0-beta2', 'provider').canonical, '1.0.0-beta2');
});

test('conformance: go-versions set membership and requested prereleases (providers)', () => {
  check('provider', RUBY_MATCH);
  for (const [c, list, want] of RUBY_SELECT) assert.equal(selectVersions(list, c, 'provider').selected, want, `${c} over ${list}`);
  assert.equal(selectVersions(['0.0.0'], null, 'provider').selected, '0.0.0'); // no constraint at all = versions.All
});

export const PORTED = {
  module: GO_VERSION_PARSE.length + GO_VERSION_PARTS.length + GO_VERSION_COMPARE.length + GO_VERSION_CHECK.length + GO_VERSION_BAD_CONSTRAINTS.length + TOFU_MODULE_PRERELEASE.length,
  provider: RUBY_PARSE.length + RUBY_MATCH.length + RUBY_SELECT.length + 11,
};
