// A small reader for the parts of OpenTofu's CLI configuration we need: `credentials "host" {
// token = "…" }` blocks (HCL native syntax, or JSON when the file name ends in .json). Everything
// else in the file (provider_installation, plugin_cache_dir, …) is skipped.

export interface CredentialEntry { host: string; token: string }
/** Filled by the parsers: the `credentials_helper "name"` the file configures (not supported). */
export interface CliConfigExtras { helper?: string }

type Tok = { t: 'ident' | 'string' | 'punct' | 'nl' | 'other'; v: string };

function tokenize(src: string): Tok[] {
  const out: Tok[] = [];
  let i = 0;
  while (i < src.length) {
    const c = src[i];
    if (c === '\n') { out.push({ t: 'nl', v: '\n' }); i++; continue; }
    if (c === ' ' || c === '\t' || c === '\r') { i++; continue; }
    if (c === '#' || (c === '/' && src[i + 1] === '/')) { while (i < src.length && src[i] !== '\n') i++; continue; }
    if (c === '/' && src[i + 1] === '*') { const e = src.indexOf('*/', i + 2); i = e < 0 ? src.length : e + 2; out.push({ t: 'nl', v: '\n' }); continue; }
    if (c === '"') {
      let j = i + 1;
      let s = '';
      while (j < src.length && src[j] !== '"' && src[j] !== '\n') {
        if (src[j] === '\\' && j + 1 < src.length) {
          const n = src[j + 1];
          if (n === 'u' && /^[0-9a-fA-F]{4}$/.test(src.slice(j + 2, j + 6))) { s += String.fromCharCode(parseInt(src.slice(j + 2, j + 6), 16)); j += 6; continue; }
          s += ({ n: '\n', t: '\t', r: '\r', '"': '"', '\\': '\\' } as Record<string, string>)[n] ?? n;
          j += 2;
          continue;
        }
        s += src[j++];
      }
      out.push({ t: 'string', v: s });
      i = j + 1;
      continue;
    }
    if ('{}[]()=,:'.includes(c)) { out.push({ t: 'punct', v: c }); i++; continue; }
    const m = /^[A-Za-z_][A-Za-z0-9_-]*/.exec(src.slice(i, i + 256));
    if (m) { out.push({ t: 'ident', v: m[0] }); i += m[0].length; continue; }
    const o = /^[^\s{}[\]()=,:"#]+/.exec(src.slice(i, i + 256));
    out.push({ t: 'other', v: o ? o[0] : c });
    i += o ? o[0].length : 1;
  }
  return out;
}

/** `credentials "host" { token = "…" }` blocks from HCL native syntax. */
export function parseCliConfigHcl(src: string, extras?: CliConfigExtras): CredentialEntry[] {
  const toks = tokenize(src);
  const out: CredentialEntry[] = [];
  let i = 0;
  const skipValue = () => {
    let depth = 0;
    while (i < toks.length) {
      const t = toks[i];
      if (t.t === 'punct' && '{[('.includes(t.v)) depth++;
      else if (t.t === 'punct' && '}])'.includes(t.v)) { if (depth === 0) return; depth--; }
      else if (t.t === 'nl' && depth === 0) return;
      i++;
    }
  };
  const skipBlockBody = () => { // at '{'
    let depth = 0;
    for (; i < toks.length; i++) {
      const t = toks[i];
      if (t.t === 'punct' && t.v === '{') depth++;
      else if (t.t === 'punct' && t.v === '}' && --depth === 0) { i++; return; }
    }
  };
  while (i < toks.length) {
    const t = toks[i];
    if (t.t !== 'ident') { i++; continue; }
    const name = t.v;
    i++;
    if (toks[i]?.t === 'punct' && toks[i].v === '=') { i++; skipValue(); continue; }
    const labels: string[] = [];
    while (toks[i] && (toks[i].t === 'string' || toks[i].t === 'ident')) labels.push(toks[i++].v);
    if (!(toks[i]?.t === 'punct' && toks[i].v === '{')) continue;
    if (name === 'credentials_helper' && labels.length === 1 && extras) extras.helper = labels[0];
    if (name !== 'credentials' || labels.length !== 1) { skipBlockBody(); continue; }
    const bodyStart = ++i;
    let depth = 1;
    let token: string | undefined;
    for (; i < toks.length && depth > 0; i++) {
      const b = toks[i];
      if (b.t === 'punct' && b.v === '{') depth++;
      else if (b.t === 'punct' && b.v === '}') depth--;
      else if (depth === 1 && b.t === 'ident' && b.v === 'token' && i >= bodyStart && toks[i + 1]?.v === '=' && toks[i + 2]?.t === 'string') token = toks[i + 2].v;
    }
    if (token !== undefined) out.push({ host: labels[0], token });
  }
  return out;
}

/** `{"credentials": {"host": {"token": "…"}}}` (credentials.tfrc.json, or a .json CLI config). */
export function parseCliConfigJson(src: string, extras?: CliConfigExtras): CredentialEntry[] {
  const out: CredentialEntry[] = [];
  let doc: unknown;
  try { doc = JSON.parse(src); } catch { return out; }
  const helper = (doc as { credentials_helper?: unknown })?.credentials_helper;
  if (extras && helper && typeof helper === 'object') {
    const first = (Array.isArray(helper) ? helper[0] : helper) as Record<string, unknown> | undefined;
    const name = first && typeof first === 'object' ? Object.keys(first)[0] : undefined;
    if (name) extras.helper = name;
  }
  const creds = (doc as { credentials?: unknown })?.credentials;
  const add = (obj: unknown) => {
    if (!obj || typeof obj !== 'object' || Array.isArray(obj)) return;
    for (const [host, v] of Object.entries(obj as Record<string, unknown>)) {
      const token = (v as { token?: unknown })?.token;
      if (typeof token === 'string') out.push({ host, token });
    }
  };
  if (Array.isArray(creds)) creds.forEach(add);
  else add(creds);
  return out;
}
