// Type constraints: checking a large variables file and converting a large literal, each held to a
// ratio against parsing the same text (measured in the same run), so the type layer never costs
// more than a small multiple of the parse the editor does anyway.
import type { BenchReporter } from './index';
import { parseHcl, parseExpression } from '../src/engine/config/parser';
import { extractFile } from '../src/engine/config/extract';
import { analyzeVariable } from '../src/engine/modulepkg/variables';
import { parseTypeText } from '../src/engine/types/text';
import { convertValue } from '../src/engine/types/convert';
import { valueFromExpression } from '../src/engine/types/value';

export const title = 'type constraints';

function best(fn: () => void, runs = 5): number {
  let min = Infinity;
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    fn();
    min = Math.min(min, performance.now() - t0);
  }
  return min;
}

export async function run(report: BenchReporter): Promise<void> {
  const vars: string[] = [];
  for (let i = 0; i < 1500; i++) {
    vars.push(`variable "v${i}" {
  type = list(object({
    name    = string
    enabled = optional(bool, true)
    ports   = optional(list(number), [80, 443])
    website = optional(object({
      index = optional(string, "index.html")
      rules = optional(map(string))
    }), {})
  }))
  default = [{ name = "a${i}", ports = ["8080"] }, { name = "b", website = { rules = { x = 1 } } }]
}`);
  }
  const text = vars.join('\n\n');
  const parseMs = best(() => parseHcl(text));
  const file = parseHcl(text);
  const summary = extractFile(file, text);
  const checkMs = best(() => { for (const v of summary.variables) analyzeVariable(v, text, 'bench.tf'); });
  report.note(`${summary.variables.length} variables, ${(text.length / 1024).toFixed(0)} KiB`);
  report.result('parse (baseline)', `${parseMs.toFixed(1)} ms`);
  const r1 = checkMs / parseMs;
  report.result('type + default check of every variable', `${checkMs.toFixed(1)} ms`);
  report.result('check / parse', `${r1.toFixed(2)}×`, '≤ 3×', r1 <= 3);

  const type = parseTypeText('list(object({ name = string, enabled = optional(bool, true), tags = optional(map(string), {}), size = number }))').type;
  const items: string[] = [];
  for (let i = 0; i < 20000; i++) items.push(`{ name = "n${i}", size = "${i}", tags = { a = ${i}, b = true } }`);
  const valueText = `[${items.join(',\n')}]`;
  const valueParseMs = best(() => parseExpression(valueText), 3);
  const expr = parseExpression(valueText).expr;
  const value = valueFromExpression(expr, valueText);
  const convMs = best(() => { const r = convertValue(value, type); if (!r.ok) throw new Error(r.error.message); }, 3);
  report.note(`literal of 20000 objects, ${(valueText.length / 1024).toFixed(0)} KiB`);
  report.result('parse literal (baseline)', `${valueParseMs.toFixed(1)} ms`);
  report.result('convert to list(object(…)) with defaults', `${convMs.toFixed(1)} ms`);
  const r2 = convMs / valueParseMs;
  report.result('convert / parse', `${r2.toFixed(2)}×`, '≤ 3×', r2 <= 3);
}
