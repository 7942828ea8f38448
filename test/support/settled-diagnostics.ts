// A document's registry diagnostics as an editor ends up showing them: recomputed on every settled
// lookup, as the adapters do, until nothing is on its way and nothing new arrived for 300 ms (a slow
// answer on a busy machine, e.g. a git ls-remote, is not "no answer").
import type { FeatureContext } from '../../src/features/context';
import { registryDiagnostics } from '../../src/features/diagnostics';
import type { DocRefs } from '../../src/features/refs';

export async function settledDiagnostics(ctx: FeatureContext, refs: DocRefs, timeoutMs = 20_000): Promise<ReturnType<typeof registryDiagnostics>> {
  let r = registryDiagnostics(ctx, refs, new Set());
  let last = Date.now();
  const sub = ctx.lookup.onDidSettle(() => { last = Date.now(); r = registryDiagnostics(ctx, refs, new Set()); });
  try {
    for (const t0 = Date.now(); (ctx.lookup.pendingCount > 0 || Date.now() - last < 300) && Date.now() - t0 < timeoutMs;) {
      await new Promise((res) => setTimeout(res, 25));
    }
  } finally { sub.dispose(); }
  return r;
}
