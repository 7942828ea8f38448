// Memoized version selection: the registry's list (one array object per cached answer) is parsed
// and sorted once per constraint, so warm handlers never re-parse versions.
import { selectVersions, Selection, VersionRules } from '../engine/versions';

const memo = new WeakMap<readonly string[], Map<string, Selection>>();

export function select(versions: readonly string[], constraint: string | null, rules: VersionRules): Selection {
  let m = memo.get(versions);
  if (!m) {
    m = new Map();
    memo.set(versions, m);
  }
  const key = `${rules}\u0000${constraint ?? '\u0001'}`;
  let s = m.get(key);
  if (!s) {
    if (m.size > 200) m.clear();
    s = selectVersions(versions as string[], constraint, rules);
    m.set(key, s);
  }
  return s;
}
