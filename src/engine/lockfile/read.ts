// Reading `.terraform.lock.hcl` with the project's tolerant HCL parser: every provider block with
// the ranges an editor needs, and OpenTofu's own checks (internal/depsfile/locks_file.go) as
// diagnostics — a half-typed file still yields every block that can be read. A lock file with
// errors is one `tofu init` refuses; warnings are ours (a hash OpenTofu accepts but that can never
// match a package).
import { isBuiltInProvider, parseProviderSource } from '../addresses';
import type { Attribute, Block, Diagnostic, Expression, Range } from '../config/ast';
import { parseHcl } from '../config/parser';
import { isSupportedHash } from '../providerpkg/hash';
import { parseVersion, tryParseConstraint } from '../versions';
import { canonicalConstraints } from './render';

export type LockDiagnosticCode =
  | 'syntax' | 'unsupported' | 'invalid-address' | 'non-normalized-address' | 'not-lockable' | 'duplicate-provider'
  | 'missing-version' | 'invalid-version' | 'invalid-constraints' | 'invalid-hashes' | 'suspicious-hash' | 'module-locks';

export interface LockDiagnostic extends Diagnostic {
  code: LockDiagnosticCode;
}

export interface LockedProvider {
  /** The block label: the fully qualified provider address. */
  address: string;
  /** null when missing or not a string. */
  version: string | null;
  /** The recorded constraints string, or null when there is none. */
  constraints: string | null;
  /** As written (OpenTofu keeps them sorted and unique). */
  hashes: string[];
  /** The whole block. */
  range: Range;
  /** `provider "…"`: the type keyword and label (where hovers and block diagnostics go). */
  headerRange: Range;
  labelRange: Range;
  versionRange?: Range;
  constraintsRange?: Range;
  hashesRange?: Range;
}

export interface LockFile {
  /** Every provider block that could be read (also those with errors), in file order. */
  providers: LockedProvider[];
  diagnostics: LockDiagnostic[];
}

/** Lock-file semantics of OpenTofu's ParseHash: a scheme of at least one character, then ':'. */
export function isHashString(h: string): boolean {
  return h.indexOf(':') >= 1;
}

export function readLockFile(text: string): LockFile {
  const file = parseHcl(text);
  const diagnostics: LockDiagnostic[] = file.diagnostics.map((d) => ({ ...d, code: 'syntax' as const }));
  const providers: LockedProvider[] = [];
  const seen = new Map<string, LockedProvider>();
  let moduleWarned = false;
  const diag = (code: LockDiagnosticCode, message: string, range: Range, severity: 'error' | 'warning' = 'error') =>
    diagnostics.push({ code, message, range, severity });

  for (const item of file.body.items) {
    if (item.kind === 'attribute') {
      diag('unsupported', `Unsupported argument: an argument named "${item.name}" is not expected here.`, item.nameRange);
      continue;
    }
    if (item.type === 'module') {
      if (!moduleWarned) diag('module-locks', 'Dependency locks for modules are not yet supported: OpenTofu ignores this block.', item.typeRange, 'warning');
      moduleWarned = true;
      continue;
    }
    if (item.type !== 'provider') {
      diag('unsupported', `Unsupported block type: blocks of type "${item.type}" are not expected here.`, item.typeRange);
      continue;
    }
    const p = readProvider(item, diag);
    if (!p) continue;
    const prev = seen.get(p.address);
    if (prev) {
      diag('duplicate-provider', `Duplicate provider lock: this lock file already declared a lock for provider ${p.address} at line ${prev.range.start.line + 1}.`, p.headerRange);
      continue;
    }
    seen.set(p.address, p);
    providers.push(p);
  }
  return { providers, diagnostics };
}

type Report = (code: LockDiagnosticCode, message: string, range: Range, severity?: 'error' | 'warning') => void;

function readProvider(block: Block, diag: Report): LockedProvider | undefined {
  const label = block.labels[0];
  const headerRange = { start: block.typeRange.start, end: (block.labels[block.labels.length - 1] ?? block.typeRange).range.end };
  if (!label || block.labels.length !== 1) {
    diag('syntax', 'A provider block in a lock file needs exactly one label: the provider source address.', headerRange);
    if (!label) return undefined;
  }
  const raw = label.value;
  let canonical: string;
  try {
    const addr = parseProviderSource(raw);
    canonical = addr.address;
    if (isBuiltInProvider(addr)) {
      diag('not-lockable', `Cannot lock a version for built-in provider ${canonical}: built-in providers are bundled inside OpenTofu itself.`, label.range);
    } else if (addr.namespace === '-') {
      diag('not-lockable', `Provider source address ${canonical} is a special provider that is not eligible for dependency locking.`, label.range);
    } else if (canonical !== raw) {
      diag('non-normalized-address', `Non-normalized provider source address: it must be written as "${canonical}", the fully-qualified and normalized form.`, label.range);
    }
  } catch {
    diag('invalid-address', 'Invalid provider source address: it must be a valid, fully-qualified address of the form "hostname/namespace/type".', label.range);
    canonical = raw;
  }
  const p: LockedProvider = { address: canonical, version: null, constraints: null, hashes: [], range: block.range, headerRange, labelRange: label.range };
  const attrs = new Map<string, Attribute>();
  for (const item of block.body.items) {
    if (item.kind === 'block') {
      diag('unsupported', `Unsupported block type: blocks of type "${item.type}" are not expected here.`, item.typeRange);
    } else if (!['version', 'constraints', 'hashes'].includes(item.name)) {
      diag('unsupported', `Unsupported argument: an argument named "${item.name}" is not expected here.`, item.nameRange);
    } else if (attrs.has(item.name)) {
      diag('unsupported', `Attribute redefined: the argument "${item.name}" was already set at line ${attrs.get(item.name)!.range.start.line + 1}.`, item.nameRange);
    } else {
      attrs.set(item.name, item);
    }
  }
  const version = attrs.get('version');
  if (!version) {
    diag('missing-version', 'Missing required argument: a provider lock block must contain a "version" argument.', headerRange);
  } else {
    p.versionRange = version.expr.range;
    p.version = stringOf(version.expr, diag);
    if (p.version !== null) {
      const v = parseVersion(p.version, 'provider');
      if (typeof v === 'string') {
        diag('invalid-version', `Invalid provider version number: the selected version number for provider ${canonical} is invalid: ${v}.`, version.expr.range);
      } else {
        const canon = v.canonical + (v.build ? `+${v.build}` : '');
        if (canon !== p.version) diag('invalid-version', `Invalid provider version number: the selected version number for provider ${canonical} must be written in normalized form: "${canon}".`, version.expr.range);
      }
    }
  }
  const constraints = attrs.get('constraints');
  if (constraints) {
    p.constraintsRange = constraints.expr.range;
    p.constraints = stringOf(constraints.expr, diag);
    if (p.constraints !== null) {
      const parsed = tryParseConstraint(p.constraints, 'provider');
      if ('error' in parsed) {
        diag('invalid-constraints', `Invalid provider version constraints: the recorded version constraints for provider ${canonical} are invalid: ${parsed.error}.`, constraints.expr.range);
      } else {
        const canon = canonicalConstraints([p.constraints]);
        if (canon !== p.constraints) diag('invalid-constraints', `Invalid provider version constraints: the recorded version constraints for provider ${canonical} must be written in normalized form: "${canon}".`, constraints.expr.range);
      }
    }
  }
  const hashes = attrs.get('hashes');
  if (hashes) {
    p.hashesRange = hashes.expr.range;
    p.hashes = readHashes(hashes.expr, diag);
  }
  return p;
}

function readHashes(expr: Expression, diag: Report): string[] {
  if (expr.kind !== 'tuple') {
    if (expr.kind !== 'invalid') diag('invalid-hashes', 'Invalid provider hash set: "hashes" must be a static list of strings.', expr.range);
    return [];
  }
  if (!expr.items.length) {
    diag('invalid-hashes', 'Invalid provider hash set: the "hashes" argument must either be omitted or contain at least one hash value.', expr.range);
    return [];
  }
  const out: string[] = [];
  for (const item of expr.items) {
    const h = stringOf(item, diag);
    if (h === null) continue;
    if (!isHashString(h)) {
      diag('invalid-hashes', `Invalid provider hash string: cannot interpret ${JSON.stringify(h)} as a provider hash: a hash string must start with a scheme keyword followed by a colon.`, item.range);
      continue;
    }
    if ((h.startsWith('h1:') || h.startsWith('zh:')) && !isSupportedHash(h)) {
      diag('suspicious-hash', `${JSON.stringify(h)} is not a well-formed ${h.slice(0, 3)} hash: OpenTofu accepts it, but no package can ever match it.`, item.range, 'warning');
    }
    out.push(h);
  }
  return out;
}

function stringOf(expr: Expression, diag: Report): string | null {
  if (expr.kind === 'literal' && typeof expr.value === 'string') return expr.value;
  if (expr.kind !== 'invalid') diag('unsupported', 'Incorrect attribute value type: a literal string is required here (no references or templates).', expr.range);
  return null;
}
