// The parser warm-up samples (src/engine/config/warmup.ts): valid, and covering what they claim.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extractFile, parseHcl, parseJsonConfig, warmUpParser } from '../../../src/engine/config';
import { scan } from '../../../src/engine/config/scanner';
import { TOKEN_NAMES } from '../../../src/engine/config/tokens';
import { WARM_UP_SAMPLES } from '../../../src/engine/config/warmup';

test('warm-up samples parse without a diagnostic and take every token kind of the native syntax', () => {
  const native = parseHcl(WARM_UP_SAMPLES.native);
  assert.deepEqual(native.diagnostics, []);
  const json = parseJsonConfig(WARM_UP_SAMPLES.json);
  assert.deepEqual(json.diagnostics, []);
  const summary = extractFile(native, WARM_UP_SAMPLES.native);
  assert.deepEqual(summary.modules.map((m) => m.name), ['m']);
  assert.deepEqual(summary.requiredProviders.map((p) => p.name), ['aws', 'legacy']);
  assert.equal(extractFile(json, WARM_UP_SAMPLES.json).modules.length, 1);
  // Every token kind except the ones only broken input produces.
  const { tokens } = scan(WARM_UP_SAMPLES.native);
  const seen = new Set(Array.from(tokens.kinds.subarray(0, tokens.count)));
  const missing = TOKEN_NAMES.map((name, kind) => ({ name, kind })).filter(({ name, kind }) => !seen.has(kind) && name !== 'invalid character');
  assert.deepEqual(missing, [], `token kinds the sample never produces: ${missing.map((m) => m.name).join(', ')}`);
  warmUpParser({ json: true }); // and it runs
  warmUpParser({ json: true, overview: true });
});
