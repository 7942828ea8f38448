// hashicorp/go-version rules, as `tofu init` applies them to modules.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeConstraint, matchesConstraint, parseConstraint, parseVersion, selectVersions, ParsedVersion } from '../../../src/engine/versions';

const v = (s: string) => parseVersion(s, 'module') as ParsedVersion;

// [constraint, version, matches]
const MATCH: Array<[string, string, boolean]> = [
  ['1.2.3', '1.2.3', true], ['1.2.3', '1.2.4', false], ['1.2.3', 'v1.2.3', true],
  ['v1.2.3', '1.2.3', true], ['=1.2.3', '1.2.3', true], ['= 1.2.3', '1.2.3', true], ['=  1.2.3', '1.2.3', true],
  ['1.2', '1.2.0', true], ['1', '1.0.0', true], ['1.2.3+build', '1.2.3', true],
  ['!= 1.2.3', '1.2.3', false], ['!= 1.2.3', '1.2.4', true],
  ['> 1.2.3', '1.2.4', true], ['> 1.2.3', '1.2.3', false], ['>1.2', '1.2.1', true],
  ['>= 1.2.3', '1.2.3', true], ['>= 1.2.3', '1.2.2', false],
  ['< 2', '1.99.99', true], ['< 2', '2.0.0', false],
  ['<= 1.2.3', '1.2.3', true], ['<= 1.2.3', '1.2.4', false],
  ['~> 1.2.3', '1.2.3', true], ['~> 1.2.3', '1.2.9', true], ['~> 1.2.3', '1.3.0', false], ['~> 1.2.3', '1.2.2', false],
  ['~> 1.2', '1.2.0', true], ['~> 1.2', '1.9.9', true], ['~> 1.2', '2.0.0', false], ['~> 1.2', '1.1.9', false],
  ['~> 1', '1.0.0', true], ['~> 1', '1.9.0', true], ['~> 1', '2.0.0', true], ['~> 1', '7.3.1', true], ['~> 1', '0.9.0', false],
  ['~> 0.12', '0.15.5', true], ['~> 0.12', '1.0.0', false], ['~> v1.2', '1.3.0', true],
  ['>= 1.0, < 2.0', '1.5.0', true], ['>= 1.0, < 2.0', '2.0.0', false], ['>=1.0,<2.0', '0.9.0', false],
  ['>= 1.0, != 1.5.0', '1.5.0', false], ['>= 1.0, != 1.5.0', '1.5.1', true],
  // go-version's prerelease rules for the plain constraint check
  ['>= 1.0.0', '1.1.0-beta', false], ['< 2.0.0', '2.0.0-rc1', false],
  ['>= 1.0.0-beta', '1.0.0-rc1', true], ['>= 1.0.0-beta', '1.1.0-rc1', false],
  ['1.0.0-beta', '1.0.0-beta', true], ['1.0.0-beta', '1.0.0', false],
  ['~> 1.0.0-beta', '1.0.0', false], ['~> 1.0', '1.0.1-beta', false],
];

test('module constraints: operator table (go-version)', () => {
  for (const [c, ver, want] of MATCH) {
    assert.equal(matchesConstraint(v(ver), parseConstraint(c, 'module')), want, `${ver} ${want ? 'should' : 'should not'} match "${c}"`);
  }
});

test('module versions: leading "v", short forms and invalid strings', () => {
  assert.equal(v('v1.2.3').canonical, '1.2.3');
  assert.equal(v('1.2').canonical, '1.2.0');
  assert.equal(v('2').canonical, '2.0.0');
  assert.equal(v('1.0.0beta').prerelease, 'beta'); // go-version accepts a prerelease without "-"
  assert.equal(v('1.2.0+build.5').build, 'build.5');
  for (const bad of ['', 'latest', '1..2', 'x1.0', '1.0.0+', '1.0.0 beta']) {
    assert.equal(typeof parseVersion(bad, 'module'), 'string', JSON.stringify(bad));
  }
});

test('module constraints: malformed constraints are errors', () => {
  for (const bad of ['', ' ', '>', '=> 1.0', '>> 1.0', '~> a', '1.0,', ',1.0', '1.0 2.0', '^1.0', '~1.0']) {
    assert.throws(() => parseConstraint(bad, 'module'), /malformed version constraint/, JSON.stringify(bad));
  }
});

const LIST = ['1.0.0', '1.1.0', 'v1.2.0', '1.2.3', '1.10.0', '2.0.0-beta.1', '2.0.0', '2.1.0', '3.0.0-rc.1', 'bogus'];

test('module selection: newest match, newest overall, matching list, as the registry wrote them', () => {
  const table: Array<[string | null, string | null, string[]]> = [
    [null, '2.1.0', ['2.1.0', '2.0.0', '1.10.0', '1.2.3', 'v1.2.0', '1.1.0', '1.0.0']],
    ['~> 1.2', '1.10.0', ['1.10.0', '1.2.3', 'v1.2.0']],
    ['~> 1.2.0', '1.2.3', ['1.2.3', 'v1.2.0']],
    ['~> 1', '2.1.0', ['2.1.0', '2.0.0', '1.10.0', '1.2.3', 'v1.2.0', '1.1.0', '1.0.0']], // no upper bound
    ['1.2.0', 'v1.2.0', ['v1.2.0']],
    ['>= 4.0', null, []],
    ['2.0.0-beta.1', '2.0.0-beta.1', ['2.0.0-beta.1']], // an exact prerelease is selectable
    ['=2.0.0-beta.1', '2.0.0-beta.1', ['2.0.0-beta.1']],
    ['= 2.0.0-beta.1', null, []], // tofu re-parses npm-style, which refuses the space → prerelease ignored
    ['>= 2.0.0-beta.1', '2.1.0', ['2.1.0', '2.0.0']], // not named exactly → never the prerelease
    ['2.0.0-beta.1, >= 1.0', null, []], // a prerelease combined with anything else is never selected
    ['3.0.0-rc.1', '3.0.0-rc.1', ['3.0.0-rc.1']],
  ];
  for (const [c, selected, matching] of table) {
    const s = selectVersions(LIST, c, 'module');
    assert.equal(s.selected, selected, `selected for ${c}`);
    assert.deepEqual(s.matching, matching, `matching for ${c}`);
    assert.equal(s.error, undefined);
  }
  const all = selectVersions(LIST, null, 'module');
  assert.deepEqual(all.versions, ['3.0.0-rc.1', '2.1.0', '2.0.0', '2.0.0-beta.1', '1.10.0', '1.2.3', 'v1.2.0', '1.1.0', '1.0.0']);
  assert.equal(all.newest, '2.1.0'); // prereleases are not "newest" unless requested
  assert.deepEqual(all.invalid, ['bogus']);
  assert.equal(selectVersions(LIST, '3.0.0-rc.1', 'module').newest, '3.0.0-rc.1');
});

test('module selection: an invalid constraint is reported, nothing matches', () => {
  const s = selectVersions(LIST, '>>1', 'module');
  assert.match(s.error ?? '', /malformed version constraint ">>1"/);
  assert.equal(s.selected, null);
  assert.deepEqual(s.matching, []);
  assert.equal(s.newest, '2.1.0');
});

test('module constraints: descriptions for hovers', () => {
  assert.equal(describeConstraint('~> 1.2', 'module'), 'at least 1.2.0 and below 2.0.0');
  assert.equal(describeConstraint('~> 1.2.3', 'module'), 'at least 1.2.3 and below 1.3.0');
  assert.equal(describeConstraint('~> 1', 'module'), 'at least 1.0.0 (no upper bound)');
  assert.equal(describeConstraint('>= 1.0, < 2.0, != 1.5.0', 'module'), 'at least 1.0.0 and below 2.0.0 and not 1.5.0');
  assert.equal(describeConstraint('v1.2.3', 'module'), 'exactly 1.2.3');
  assert.equal(describeConstraint('> 1, <= 3', 'module'), 'above 1.0.0 and at most 3.0.0');
  assert.match(describeConstraint('=> 1', 'module'), /malformed/);
});

test('module versions with more than three numeric parts (go-version accepts them, and so does tofu init)', () => {
  const four = v('1.2.3.4');
  assert.equal(four.canonical, '1.2.3.4');
  assert.deepEqual([four.major, four.minor, four.patch, four.specified], [1, 2, 3, 4]);
  assert.equal(v('v2.0.0.1').canonical, '2.0.0.1');
  const table: Array<[string, string, boolean]> = [
    ['1.2.3.4', '1.2.3.4', true], ['1.2.3', '1.2.3.0', true], ['1.2.3.0', '1.2.3', true], ['1.2.3', '1.2.3.1', false],
    ['> 1.2.3', '1.2.3.1', true], ['< 1.2.3.1', '1.2.3', true], ['>= 1.2.3.5', '1.2.3.4', false],
    ['~> 1.2.3.4', '1.2.3.9', true], ['~> 1.2.3.4', '1.2.4.0', false], ['~> 1.2.3.4', '1.2.3.3', false],
    ['~> 1.2.3.4', '1.2.4', false], // go-version: a version with fewer parts than the constraint never matches "~>"
    ['~> 1.2.3', '1.2.9.9', true], ['~> 1.2.3', '1.3.0.0', false], ['~> 1.2', '1.9.0.1', true], ['~> 1', '5.0.0.1', true],
  ];
  for (const [c, ver, want] of table) {
    assert.equal(matchesConstraint(v(ver), parseConstraint(c, 'module')), want, `${ver} ${want ? 'should' : 'should not'} match "${c}"`);
  }
  const sel = selectVersions(['1.2.3', '1.2.3.4', '1.2.10', '1.2.3.4-beta', '1.3.0'], '~> 1.2.3', 'module');
  assert.deepEqual(sel.versions, ['1.3.0', '1.2.10', '1.2.3.4', '1.2.3.4-beta', '1.2.3']);
  assert.deepEqual(sel.matching, ['1.2.10', '1.2.3.4', '1.2.3']);
  assert.equal(sel.selected, '1.2.10');
  // a four-part prerelease is never selected: tofu init re-parses prereleases with go-versions, which refuses it
  assert.equal(selectVersions(['1.2.3.4-beta'], '1.2.3.4-beta', 'module').selected, null);
  assert.equal(describeConstraint('~> 1.2.3.4', 'module'), 'at least 1.2.3.4 and below 1.2.4');
  assert.equal(describeConstraint('~> 1.2.3', 'module'), 'at least 1.2.3 and below 1.3.0');
  // providers stay at three parts (apparentlymart/go-versions)
  assert.match(parseVersion('1.2.3.4', 'provider') as string, /too many numbered portions/);
});
