// Tolerance: for every broken snippet, the blocks outside the broken region come out exactly as
// when the file is parsed with the snippet blanked out (same offsets: the snippet's characters are
// replaced by spaces), and the broken region is reported with a diagnostic.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Block, extractFile, parseHcl } from '../../../src/engine/config';
import { BROKEN } from './cases';

const BEFORE = `terraform {
  required_providers {
    aws = { source = "hashicorp/aws", version = ">= 5.0" }
    old = "~> 1.0"
  }
}

module "before" {
  source  = "hashicorp/consul/aws"
  version = "0.11.0"
  count   = var.enabled ? 1 : 0
}

`;
const AFTER = `

module "after" {
  source  = "terraform-aws-modules/vpc/aws"
  version = "~> 5.0"
  name    = "x-\${var.env}"
  tags    = { a = "b" }
}

variable "v" {
  type    = list(string)
  default = ["a"]
}
`;


function blank(s: string): string {
  return s.replace(/[^\n]/g, ' ');
}

function outside(blocks: Block[], from: number, to: number): Block[] {
  return blocks.filter((b) => b.range.end.offset <= from || b.range.start.offset >= to);
}

for (const [name, snippet] of BROKEN) {
  test(`recovery: ${name}`, () => {
    const broken = BEFORE + snippet + AFTER;
    const clean = BEFORE + blank(snippet) + AFTER;
    const from = BEFORE.length;
    const to = from + snippet.length;
    const b = parseHcl(broken);
    const c = parseHcl(clean);
    assert.equal(c.diagnostics.length, 0, 'the clean file parses without diagnostics');
    assert.ok(b.diagnostics.length > 0, 'the broken region is reported');
    for (const d of b.diagnostics) {
      assert.ok(d.range.start.offset >= from - 1 && d.range.start.offset <= to + 1, `diagnostic "${d.message}" at ${d.range.start.offset} lies in the broken region ${from}..${to}`);
    }
    const cleanBlocks = c.body.items as Block[];
    const kept = outside(b.body.items.filter((i): i is Block => i.kind === 'block'), from, to);
    assert.deepEqual(kept, cleanBlocks, 'every block outside the broken region is unchanged');
    const sb = extractFile(b, broken);
    const sc = extractFile(c, clean);
    assert.deepEqual(sb.requiredProviders, sc.requiredProviders);
    const out = (r: { range: { start: { offset: number }; end: { offset: number } } }): boolean => r.range.end.offset <= from || r.range.start.offset >= to;
    assert.deepEqual(sb.modules.filter(out), sc.modules);
    assert.deepEqual(sb.variables.filter(out), sc.variables);
  });
}

test('recovery: at least 30 broken inputs are covered', () => {
  assert.ok(BROKEN.length >= 30);
});
