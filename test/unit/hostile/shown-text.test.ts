// The one function text from outside passes through before a person or a log sees it
// (net/shown-text.ts, safeText): control characters escaped — in --json output too, where the
// escape must stay valid JSON — and credential values sent in this process replaced by ***.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { escapeControls, rememberSentSecret, redactSentSecrets, shownOutput } from '../../../src/engine/net/shown-text';
import { safeText, shortText } from '../../../src/engine/net/http-errors';
import { RegistryError } from '../../../src/engine/net/errors';

test('control characters: C0, DEL, C1, bidi overrides escaped; the CLI\'s own line breaks kept; --json stays valid JSON', () => {
  assert.equal(escapeControls('a\nb\r\u001b[31mc\u007f\u0085\u202e'), 'a\\nb\\r\\x1b[31mc\\u007f\\u0085\\u202e');
  assert.equal(shortText('1.0\nINJECTED'), '1.0\\nINJECTED');
  assert.equal(new RegistryError('protocol', 'tag 1.0\nINJECTED').message, 'tag 1.0\\nINJECTED');
  const doc = { tag: 'x\u202ey\u0085\u007f', msg: 'line\nbreak' };
  const printed = shownOutput(JSON.stringify(doc, null, 2) + '\n');
  assert.doesNotMatch(printed, /[\u007f-\u009f\u202a-\u202e]/);
  assert.deepEqual(JSON.parse(printed), doc, 'the JSON still parses to the same data');
  assert.equal(shownOutput('one\n\ttwo\n'), 'one\n\ttwo\n');
});

test('a credential value sent is *** wherever it appears: raw, JSON-escaped, URL-encoded, inside a URL; a Basic blob whole', () => {
  const password = 'p"w/Sent-42';
  rememberSentSecret(password);
  rememberSentSecret(Buffer.from(`me:${password}`).toString('base64'));
  rememberSentSecret('abc'); // too short to track: hiding every "abc" would garble the output
  const blob = Buffer.from(`me:${password}`).toString('base64');
  assert.equal(redactSentSecrets(`DENIED ${password} Basic ${blob}`), 'DENIED *** Basic ***');
  assert.equal(shownOutput(JSON.stringify({ m: `echo ${password}` })), '{"m":"echo ***"}');
  assert.equal(safeText(`see https://x.example/?q=${encodeURIComponent(password)}`), 'see https://x.example/?q=***');
  assert.equal(new RegistryError('http-error', `400: ${password}`).message, '400: ***');
  assert.equal(redactSentSecrets('abc'), 'abc');
});

test('escapeControls: every code point of the BMP, with the keep sets callers use, as the rule says one character at a time', () => {
  // The rule, written plainly: these are escaped unless kept; \n \r \t by name, other C0 as \xNN, the rest as \uNNNN.
  const isControl = (c: number) => c <= 0x1f || (c >= 0x7f && c <= 0x9f) || c === 0x61c || c === 0x200e || c === 0x200f ||
    c === 0x2028 || c === 0x2029 || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069);
  const one = (ch: string, keep: string) => {
    const c = ch.charCodeAt(0);
    if (!isControl(c) || keep.includes(ch)) return ch;
    return ({ '\n': '\\n', '\r': '\\r', '\t': '\\t' } as Record<string, string>)[ch] ?? (c < 0x20 ? `\\x${c.toString(16).padStart(2, '0')}` : `\\u${c.toString(16).padStart(4, '0')}`);
  };
  const all: string[] = [];
  for (let c = 0; c <= 0xffff; c++) if (c < 0xd800 || c > 0xdfff) all.push(String.fromCharCode(c));
  const text = all.join('');
  for (const keep of ['', '\n\t', '\n', '\t', '\u202e\u0000\u009f', 'abc']) {
    assert.equal(escapeControls(text, keep), all.map((ch) => one(ch, keep)).join(''), `keep ${JSON.stringify(keep)}`);
    assert.equal(escapeControls(`x${text}y`, keep), `x${all.map((ch) => one(ch, keep)).join('')}y`); // the cached pattern again
  }
});
