// The shared real-world corpus (../shared/corpus beside the clone, as in CI). Tests that need it
// skip with NO_CORPUS as their reason when it is absent, e.g. in a plain clone elsewhere.
import { existsSync, readdirSync } from 'node:fs';
import * as path from 'node:path';

// out/test/support → <repo>/../shared/corpus
export const CORPUS = path.resolve(__dirname, '../../../../shared/corpus');

export const NO_CORPUS = existsSync(CORPUS) ? undefined : `shared corpus not found at ${CORPUS} (it sits beside the clone in CI)`;

/** Every .tf file of the corpus, in name order. */
export function corpusFiles(): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.tf')) out.push(p);
    }
  };
  walk(CORPUS);
  return out;
}
