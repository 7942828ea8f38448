// apparentlymart/go-versions rules (Ruby style), as OpenTofu applies them to providers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeConstraint, matchesConstraint, parseConstraint, parseVersion, selectVersions, ParsedVersion } from '../../../src/engine/versions';

const v = (s: string) => parseVersion(s, 'provider') as ParsedVersion;

const MATCH: Array<[string, string, boolean]> = [
  ['1.2.3', '1.2.3', true], ['1.2.3', '1.2.4', false], ['= 1.2.3', '1.2.3', true], ['=1.2.3', '1.2.3', true],
  ['1.2', '1.2.0', true], ['1.2', '1.2.5', false], // partial versions are padded with zero
  ['!= 1.2.3', '1.2.3', false], ['!= 1.2.3', '1.2.4', true],
  ['> 1.2', '1.2.1', true], ['> 1.2', '1.2.0', false],
  ['>= 1.2.3', '1.2.3', true], ['>= 1.2.3', '1.2.2', false],
  ['< 2', '1.99.0', true], ['< 2', '2.0.0', false], ['<= 1.2.3', '1.2.3', true], ['<= 1.2.3', '1.2.4', false],
  ['~> 1.2.3', '1.2.9', true], ['~> 1.2.3', '1.3.0', false], ['~> 1.2.3', '1.2.2', false],
  ['~> 1.2', '1.9.0', true], ['~> 1.2', '2.0.0', false], ['~> 1.2', '1.1.0', false],
  ['~> 1', '1.0.0', true], ['~> 1', '1.9.9', true], ['~> 1', '2.0.0', false], ['~> 1', '0.9.0', false], // Ruby style: upper bound
  ['~> 0.12', '0.15.0', true], ['~> 0.12', '1.0.0', false],
  ['>= 1.0, < 2.0', '1.5.0', true], ['>= 1.0, < 2.0', '2.0.0', false], ['>=1.0,<2.0', '1.0.0', true],
];

test('provider constraints: operator table (go-versions, Ruby style)', () => {
  for (const [c, ver, want] of MATCH) {
    assert.equal(matchesConstraint(v(ver), parseConstraint(c, 'provider')), want, `${ver} ${want ? 'should' : 'should not'} match "${c}"`);
  }
});

test('provider constraints: syntax errors with go-versions messages', () => {
  const table: Array<[string, RegExp]> = [
    ['v1.2.3', /a "v" prefix should not be used/],
    ['>= v1.2.3', /a "v" prefix should not be used/],
    ['>= 1.0, v2', /a "v" prefix should not be used/],
    ['=> 1.0', /did you mean ">="\?/],
    ['=< 1.0', /did you mean "<="\?/],
    ['>=  1.0', /only one space is expected after the operator ">="/],
    ['^1.0', /invalid constraint operator "\^"/],
    ['1.0 2.0', /missing comma after "1.0"/],
    ['1.2.3.4', /too many numbered portions/],
    ['1.x', /wildcards can't be used|invalid version/],
    ['', /empty version constraint/],
    ['>= 1.0,', /trailing comma/],
  ];
  for (const [c, re] of table) assert.throws(() => parseConstraint(c, 'provider'), re, JSON.stringify(c));
});

test('provider versions: no "v" prefix, three parts at most', () => {
  assert.equal(v('1.2').canonical, '1.2.0');
  assert.match(parseVersion('v1.2.3', 'provider') as string, /"v" prefix/);
  assert.match(parseVersion('1.2.3.4', 'provider') as string, /too many numbered portions/);
  assert.equal(typeof parseVersion('1.0.0beta', 'provider'), 'string');
});

const LIST = ['1.0.0', '1.1.0', '1.2.0', '2.0.0-alpha1', '2.0.0', '2.1.0', 'v2.2.0', '3.0.0-beta'];

test('provider selection: exact prereleases only, "~> 1" bounded', () => {
  const table: Array<[string | null, string | null, string[]]> = [
    [null, '2.1.0', ['2.1.0', '2.0.0', '1.2.0', '1.1.0', '1.0.0']],
    ['~> 1', '1.2.0', ['1.2.0', '1.1.0', '1.0.0']],
    ['~> 1.1', '1.2.0', ['1.2.0', '1.1.0']],
    ['~> 2.0.0', '2.0.0', ['2.0.0']],
    ['2.0.0-alpha1', '2.0.0-alpha1', ['2.0.0-alpha1']],
    ['>= 2.0.0-alpha1', '2.1.0', ['2.1.0', '2.0.0']],
    ['2.0.0-alpha1, >= 1.0', '2.0.0-alpha1', ['2.0.0-alpha1']], // exact request still honoured alongside others
    ['3.0.0-beta, < 3.0.0-alpha', null, []],
    ['> 5', null, []],
  ];
  for (const [c, selected, matching] of table) {
    const s = selectVersions(LIST, c, 'provider');
    assert.equal(s.selected, selected, `selected for ${c}`);
    assert.deepEqual(s.matching, matching, `matching for ${c}`);
  }
  const s = selectVersions(LIST, null, 'provider');
  assert.deepEqual(s.invalid, ['v2.2.0']);
  assert.equal(s.newest, '2.1.0');
  assert.deepEqual(s.versions, ['3.0.0-beta', '2.1.0', '2.0.0', '2.0.0-alpha1', '1.2.0', '1.1.0', '1.0.0']);
});

test('the two rule sets differ exactly where OpenTofu differs', () => {
  const list = ['1.0.0', '1.5.0', '2.0.0', '1.1.0-beta'];
  assert.equal(selectVersions(list, '~> 1', 'module').selected, '2.0.0');
  assert.equal(selectVersions(list, '~> 1', 'provider').selected, '1.5.0');
  assert.equal(selectVersions(list, 'v1.0.0', 'module').selected, '1.0.0');
  assert.match(selectVersions(list, 'v1.0.0', 'provider').error ?? '', /"v" prefix/);
  assert.equal(selectVersions(list, '1.1.0-beta, >= 1.0', 'module').selected, null);
  assert.equal(selectVersions(list, '1.1.0-beta, >= 1.0', 'provider').selected, '1.1.0-beta');
  assert.equal(describeConstraint('~> 1', 'provider'), 'at least 1.0.0 and below 2.0.0');
  assert.equal(describeConstraint('~> 1', 'module'), 'at least 1.0.0 (no upper bound)');
});
