// Package URLs (https://github.com/package-url/purl-spec) for what an OpenTofu configuration uses.
// The `terraform` type is a proposal (purl-spec PR #498, now #889): pkg:terraform/NAMESPACE/NAME@VERSION,
// registry.terraform.io the default repository, `repository_url` for another. Where it is silent
// we choose (provisional, docs/sbom.md): a registry module's target system is the `system`
// qualifier and its `//subdir` the subpath; a provider has neither (so the two never collide);
// an oci:// module is the purl `oci` type (name: the repository's last segment, version: the
// manifest digest, `repository_url` and `tag`); git and HTTP archives get no purl.

/** The registry the `terraform` purl proposal takes as the default repository. */
export const PURL_DEFAULT_TERRAFORM_REGISTRY = 'registry.terraform.io';

/** A name or version segment: percent-encoded ("sha256:…" → "sha256%3A…", as the spec's oci examples). */
function enc(s: string): string {
  return encodeURIComponent(s);
}

/** A qualifier value: percent-encoded except ':' and '/' ("repository_url=docker.io/library/debian", as the spec's examples). */
function encValue(s: string): string {
  return encodeURIComponent(s).replace(/%3A/gi, ':').replace(/%2F/gi, '/');
}

function purl(type: string, namespace: string | undefined, name: string, version: string | null, qualifiers: Record<string, string>, subpath?: string): string {
  let out = `pkg:${type}/${namespace ? namespace.split('/').map(enc).join('/') + '/' : ''}${enc(name)}`;
  if (version) out += `@${enc(version)}`;
  const keys = Object.keys(qualifiers).filter((k) => qualifiers[k] !== '').sort();
  if (keys.length) out += '?' + keys.map((k) => `${k}=${encValue(qualifiers[k])}`).join('&');
  if (subpath) out += '#' + subpath.split('/').filter((s) => s && s !== '.' && s !== '..').map(enc).join('/');
  return out;
}

function registryQualifier(host: string): Record<string, string> {
  return host === PURL_DEFAULT_TERRAFORM_REGISTRY ? {} : { repository_url: `https://${host}` };
}

/** A registry module: pkg:terraform/NAMESPACE/NAME@VERSION?system=SYSTEM[&repository_url=https://HOST][#SUBDIR]. */
export function modulePurlOf(m: { host: string; namespace: string; name: string; system: string; subdir?: string }, version: string | null): string {
  return purl('terraform', m.namespace, m.name, version, { system: m.system, ...registryQualifier(m.host) }, m.subdir);
}

/** A provider: pkg:terraform/NAMESPACE/TYPE@VERSION[?repository_url=https://HOST]. */
export function providerPurlOf(p: { host: string; namespace: string; type: string }, version: string | null): string {
  return purl('terraform', p.namespace, p.type, version, registryQualifier(p.host));
}

/** An OCI artifact: pkg:oci/NAME@sha256:…?repository_url=REGISTRY/REPOSITORY[&tag=TAG]. */
export function ociPurlOf(o: { registry: string; repository: string; tag?: string; manifestDigest: string }): string {
  const name = o.repository.split('/').pop()!;
  return purl('oci', undefined, name, o.manifestDigest, { repository_url: `${o.registry}/${o.repository}`, ...(o.tag ? { tag: o.tag } : {}) });
}

