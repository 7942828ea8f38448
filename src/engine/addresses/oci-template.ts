// OpenTofu's oci_mirror `repository_template` (internal/command/cliconfig/provider_installation.go)
// and its tag rule (internal/getproviders/oci_registry_mirror_source.go): a provider version is the
// tag with its build metadata's "+" written "_".
import type { ProviderAddress } from './provider-source';
import { OciReferenceError, OciRepository, parseOciReference } from './oci-reference';

/** The tag OpenTofu looks for: the version with "+" written as "_". */
export function versionTag(version: string): string {
  return version.replace(/\+/g, '_');
}

/** The version a tag stands for ("_" read as "+"), as OpenTofu reads tags. */
export function tagVersion(tag: string): string {
  return tag.replace(/_/g, '+');
}

export interface RepositoryTemplate {
  text: string;
  /** Which of hostname, namespace, type the template uses. */
  symbols: Set<'hostname' | 'namespace' | 'type'>;
  render(addr: Pick<ProviderAddress, 'host' | 'namespace' | 'type'>): OciRepository;
}

export class TemplateError extends Error {}

const SYMBOLS = ['hostname', 'namespace', 'type'] as const;

/**
 * OpenTofu's `repository_template`: text with `${hostname}`, `${namespace}` and `${type}` (and `$${`
 * for a literal `${`); it must give "registry-host/repository". Other template expressions are
 * refused, as OpenTofu refuses other symbols.
 */
export function parseRepositoryTemplate(text: string): RepositoryTemplate {
  const parts: Array<{ text: string } | { symbol: (typeof SYMBOLS)[number] }> = [];
  const symbols = new Set<(typeof SYMBOLS)[number]>();
  let literal = '';
  for (let i = 0; i < text.length;) {
    if (text.startsWith('$${', i) || text.startsWith('%%{', i)) { literal += text.slice(i + 1, i + 3); i += 3; continue; }
    if (text.startsWith('%{', i)) throw new TemplateError(`invalid repository template ${JSON.stringify(text)}: template directives (%{…}) are not allowed`);
    if (text.startsWith('${', i)) {
      const end = text.indexOf('}', i);
      const name = end < 0 ? '' : text.slice(i + 2, end).trim();
      if (!(SYMBOLS as readonly string[]).includes(name)) {
        throw new TemplateError(`invalid repository template ${JSON.stringify(text)}: only \${hostname}, \${namespace} and \${type} may be interpolated${end < 0 ? ' (unclosed ${)' : `, not \${${text.slice(i + 2, end)}}`}`);
      }
      if (literal) parts.push({ text: literal });
      literal = '';
      parts.push({ symbol: name as (typeof SYMBOLS)[number] });
      symbols.add(name as (typeof SYMBOLS)[number]);
      i = end + 1;
      continue;
    }
    literal += text[i++];
  }
  if (literal) parts.push({ text: literal });
  const render = (addr: Pick<ProviderAddress, 'host' | 'namespace' | 'type'>): OciRepository => {
    const values = { hostname: addr.host, namespace: addr.namespace, type: addr.type };
    const out = parts.map((p) => ('symbol' in p ? values[p.symbol] : p.text)).join('');
    try {
      const ref = parseOciReference(out, 'repository');
      return { registry: ref.registry, repository: ref.repository };
    } catch (err) {
      throw new TemplateError(`the repository template ${JSON.stringify(text)} gives ${JSON.stringify(out)} for ${addr.host}/${addr.namespace}/${addr.type}, which is not an OCI repository address (${(err as OciReferenceError).message})`);
    }
  };
  // as OpenTofu does: the template must give a valid address for an example provider
  render({ host: 'example.com', namespace: 'example-namespace', type: 'example-type' });
  return { text, symbols, render };
}

/**
 * Why a template cannot serve these providers in one oci_mirror block whose `include` lists exactly
 * them (OpenTofu: a symbol may be left out only when the include patterns fix that part), or undefined.
 */
export function templateProblem(t: RepositoryTemplate, providers: Array<Pick<ProviderAddress, 'host' | 'namespace' | 'type'>>): string | undefined {
  const distinct = (f: (p: Pick<ProviderAddress, 'host' | 'namespace' | 'type'>) => string) => new Set(providers.map(f)).size;
  const missing: string[] = [];
  if (distinct((p) => p.host) > 1 && !t.symbols.has('hostname')) missing.push('${hostname} (the providers come from more than one registry)');
  if (distinct((p) => p.namespace) > 1 && !t.symbols.has('namespace')) missing.push('${namespace} (the providers have more than one namespace)');
  if (distinct((p) => p.type) > 1 && !t.symbols.has('type')) missing.push('${type} (there is more than one provider)');
  return missing.length ? `the repository template ${JSON.stringify(t.text)} must use ${missing.join(' and ')}` : undefined;
}
