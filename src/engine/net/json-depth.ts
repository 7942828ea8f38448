// JSON from a registry, a cache file or a configuration file may nest as deep as its size allows:
// JSON.parse copes, but everything recursive after it (JSON.stringify into a cache, a renderer,
// structuredClone) overflows the stack. Documents deeper than any real one are refused up front.

/** Deeper than every document OpenTofu's protocols and files use (discovery, versions, lock state: < 10; Go's encoding/json, which OpenTofu uses, stops at 10000). */
export const MAX_JSON_DEPTH = 512;

/** Whether `value` nests arrays/objects more than `max` levels deep (iterative: any depth is safe to ask). */
export function jsonTooDeep(value: unknown, max = MAX_JSON_DEPTH): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (!v || typeof v !== 'object') continue;
    if (depth >= max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v as Record<string, unknown>)) {
      if (child && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return false;
}

/** JSON.parse, refusing a document nested more than MAX_JSON_DEPTH deep (a SyntaxError, like any unreadable JSON). */
export function parseJsonBounded(text: string): unknown {
  const value: unknown = JSON.parse(text);
  if (jsonTooDeep(value)) throw new SyntaxError(`JSON nested more than ${MAX_JSON_DEPTH} levels deep`);
  return value;
}
