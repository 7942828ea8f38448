// An SbomInventory as a CycloneDX 1.6 JSON document (https://cyclonedx.org/docs/1.6/json/), valid
// against the official schema (the tests validate it with the CycloneDX library's strict JSON
// validator). Roots and providers are `application`s, modules `library`s; a local module is
// nested in the component it is part of; git commits are `pedigree.commits`; everything the
// format has no field for is a `tofu-registry:*` property. The serial number is derived from the
// content, so the same inventory and time give the same bytes.
import { createHash } from 'node:crypto';
import type { SbomComponent, SbomDocumentOptions, SbomInventory } from './types';

type Json = Record<string, unknown>;

/** "git::https://…" (go-getter's forced getter) as a URL a reader's tools accept: "git+https://…". */
export function referenceUrl(location: string): string {
  const forced = /^([a-z0-9]+)::(.*)$/is.exec(location);
  const [prefix, rest] = forced ? [`${forced[1]}+`, forced[2]] : ['', location];
  // scp-like "git@host:org/repo.git" is ssh://git@host/org/repo.git (what git reads it as)
  const scp = /^([\w.-]+@[\w.-]+):(?!\/\/)(.*)$/s.exec(rest);
  return prefix + (scp ? `ssh://${scp[1]}/${scp[2]}` : rest);
}

function componentJson(c: SbomComponent, children: Map<string, SbomComponent[]>): Json {
  const out: Json = { type: c.kind === 'module' ? 'library' : 'application', 'bom-ref': c.ref, name: c.name };
  if (c.version !== null) out.version = c.version;
  if (c.sha256.length) out.hashes = c.sha256.map((h) => ({ alg: 'SHA-256', content: h }));
  if (c.purl) out.purl = c.purl;
  const refs: Json[] = [];
  if (c.downloadLocation && !c.git) refs.push({ url: referenceUrl(c.downloadLocation), type: 'distribution' });
  if (c.git) refs.push({ url: referenceUrl(c.git.url.startsWith('git::') ? c.git.url : `git::${c.git.url}`), type: 'vcs', ...(c.git.ref ? { comment: `ref ${c.git.ref}` } : {}) });
  if (refs.length) out.externalReferences = refs;
  if (c.git?.commit) out.pedigree = { commits: [{ uid: c.git.commit }] };
  const props: Array<[string, string]> = [['tofu-registry:kind', c.kind === 'module' ? `module/${c.sourceKind}` : c.kind], ...c.properties];
  if (c.path) props.push(['tofu-registry:path', c.path]);
  for (const n of c.notes) props.push(['tofu-registry:note', n]);
  out.properties = props.map(([name, value]) => ({ name, value }));
  const nested = children.get(c.ref);
  if (nested?.length) out.components = nested.map((n) => componentJson(n, children));
  return out;
}

/** A UUID (RFC 9562 version 8: vendor-defined) from a SHA-256 of `text`. */
export function contentUuid(text: string): string {
  const h = createHash('sha256').update(text).digest('hex');
  const variant = ((parseInt(h[16], 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export function cycloneDxDocument(inv: SbomInventory, doc: SbomDocumentOptions): Json {
  const byRef = new Map(inv.components.map((c) => [c.ref, c]));
  const children = new Map<string, SbomComponent[]>();
  for (const c of inv.components) {
    if (c.partOf && byRef.has(c.partOf)) {
      const list = children.get(c.partOf) ?? [];
      list.push(c);
      children.set(c.partOf, list);
    }
  }
  const top = inv.components.filter((c) => !(c.partOf && byRef.has(c.partOf)));
  const single = inv.roots.length === 1;
  const describedRef = single ? inv.roots[0] : 'workspace';
  const described: Json = single
    ? componentJson(byRef.get(inv.roots[0])!, children)
    : { type: 'application', 'bom-ref': 'workspace', name: doc.name, properties: [{ name: 'tofu-registry:kind', value: 'workspace' }] };
  const components = top.filter((c) => c.ref !== describedRef).map((c) => componentJson(c, children));
  const deps = new Map(inv.dependencies);
  if (!single) deps.set('workspace', [...inv.roots]);
  const metadata: Json = {
    timestamp: doc.timestamp,
    tools: { components: [{ type: 'application', name: 'tofu-registry', version: doc.toolVersion }] },
    component: described,
  };
  if (inv.notes.length) metadata.properties = inv.notes.map((n) => ({ name: 'tofu-registry:note', value: n }));
  const body: Json = {
    metadata,
    components,
    dependencies: [...deps.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).map(([ref, on]) => ({ ref, dependsOn: on })),
  };
  const serialNumber = `urn:uuid:${contentUuid(JSON.stringify(body))}`;
  return { $schema: 'http://cyclonedx.org/schema/bom-1.6.schema.json', bomFormat: 'CycloneDX', specVersion: '1.6', serialNumber, version: 1, ...body };
}
