// Version completion within the editors' request budget (the features layer's, shared by the VS Code
// adapter and the language server), against the real HTTPS test registry: a registry that does not
// answer gives an empty list marked incomplete and pending within the budget, not a wait for the
// request timeout; what is cached answers at once; the lookup goes on and the next request finds it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseConfig } from '../../../src/engine/config';
import { Engine } from '../../../src/engine/engine';
import { completionsWithinBudget } from '../../../src/features/completion';
import type { FeatureContext } from '../../../src/features/context';
import { backendOf } from '../../../src/features/engine';
import { REQUEST_BUDGET_MS, RegistryLookup } from '../../../src/features/lookup';
import { collectRefs } from '../../../src/features/refs';
import { objectReader, settingsFrom } from '../../../src/features/settings';
import { startTestRegistry, TestRegistry } from '../../support/registry-server';

let reg: TestRegistry;
let engine: Engine;
let ctx: FeatureContext;
const warnings: string[] = [];

before(async () => {
  reg = await startTestRegistry();
  // a request timeout far past the budget: without the budget, completion would wait for it
  engine = new Engine({ caFiles: [reg.caCertPath], env: { HOME: '/nonexistent' }, timeoutMs: 60_000 });
  ctx = {
    engine, lookup: new RegistryLookup(backendOf(engine)), cacheDir: '/nonexistent-cache',
    log: { debug() {}, info() {}, warn(m) { warnings.push(m); }, error() {} },
    networkAllowed: () => true, settings: () => settingsFrom(objectReader({})),
  };
});
after(async () => {
  await engine.dispose();
  await reg.stop();
});

function versionDoc(address: string) {
  const text = `module "net" {\n  source  = "${address}"\n  version = ""\n}\n`;
  return { doc: { text, refs: collectRefs(parseConfig(text, 'main.tf'), text) }, offset: text.indexOf('version = "') + 11 };
}

/** The answer; fails after `ms`: a completion must never wait for the request timeout. */
async function complete(address: string, ms = 10_000) {
  const { doc, offset } = versionDoc(address);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`completion still waiting after ${ms} ms`)), ms); });
  try {
    return await Promise.race([completionsWithinBudget(ctx, doc, offset, 2, async () => new Set()), late]);
  } finally {
    clearTimeout(timer);
  }
}

test('the budget is the language server\'s (1 s), now shared through the features layer', () => {
  assert.equal(REQUEST_BUDGET_MS, 1000);
});

test('a registry that does not answer: an empty list, incomplete and pending, within the budget; cached versions answer at once', async () => {
  const ready = await complete(`${reg.host}/acme/network/aws`);
  assert.ok(ready?.items.some((i) => i.label === '2.1.0'), 'a registry that answers: its versions');
  assert.equal(ready?.isIncomplete, true);

  reg.setFault('/v1/', 'hang');
  try {
    const slow = await complete(`${reg.host}/infra/vpc/google`);
    assert.deepEqual(slow, { items: [], isIncomplete: true, pending: true }, 'no wait for the 60 s request timeout');
    // the versions already known answer at once, whatever the registry does now
    const cached = await complete(`${reg.host}/acme/network/aws`, REQUEST_BUDGET_MS);
    assert.ok(cached?.items.some((i) => i.label === '2.1.0') && !cached.pending);
    assert.equal(reg.server.count('/v1/modules/infra/vpc/google/versions'), 1, 'the slow lookup goes on (one request)');
  } finally {
    reg.setFault('/v1/', null);
  }
  assert.deepEqual(warnings, []);
});
