// OCI references as the distribution spec and its reference grammar (distribution/reference)
// define them: `registry[:port]/path/of/repo[:tag][@algorithm:hex]`. The registry part is always
// explicit here (OpenTofu's repository_template and oci:// sources require it: there is no
// implied docker.io). Everything a registry or a user writes is validated before it becomes part
// of a URL: a repository name is lowercase path components, a tag at most 128 word characters.
import { createHash } from 'node:crypto';

export interface OciRepository {
  /** "host[:port]" as written (lowercased host). */
  registry: string;
  /** "path/of/repo" */
  repository: string;
}

export interface OciReference extends OciRepository {
  tag?: string;
  digest?: string;
}

const HOST_COMPONENT = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const REGISTRY_RE = new RegExp(`^(?:${HOST_COMPONENT}(?:\\.${HOST_COMPONENT})*|\\[[0-9a-fA-F:.]+\\])(?::[0-9]{1,5})?$`);
const PATH_COMPONENT = '[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*';
const REPOSITORY_RE = new RegExp(`^${PATH_COMPONENT}(?:/${PATH_COMPONENT})*$`);
const TAG_RE = /^[\w][\w.-]{0,127}$/;
const DIGEST_RE = /^[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[a-zA-Z0-9=_-]+$/;
/** The distribution spec's limit on a repository name (registry included, as reference.NameTotalLengthMax). */
export const MAX_NAME_LENGTH = 255;

/** Why a registry name is invalid, or undefined. */
export function registryProblem(registry: string): string | undefined {
  if (!REGISTRY_RE.test(registry)) return `${JSON.stringify(registry)} is not a registry host name (host[:port])`;
  const port = /:(\d+)$/.exec(registry)?.[1];
  if (port && Number(port) > 65535) return `${JSON.stringify(registry)} has an invalid port`;
  return undefined;
}

/** Why a repository path is invalid, or undefined. */
export function repositoryProblem(repository: string, registry = ''): string | undefined {
  if (!REPOSITORY_RE.test(repository)) {
    return `${JSON.stringify(repository)} is not a valid repository name (lowercase letters, digits and separators . _ __ - between them, path segments joined by /)`;
  }
  if (registry.length + 1 + repository.length > MAX_NAME_LENGTH) return `repository name ${registry}/${repository} is longer than ${MAX_NAME_LENGTH} characters`;
  return undefined;
}

/** Why a tag is invalid, or undefined. */
export function tagProblem(tag: string): string | undefined {
  return TAG_RE.test(tag) ? undefined : `${JSON.stringify(tag)} is not a valid tag (1-128 of letters, digits, _ . -, not starting with . or -)`;
}

/** Why a digest is invalid, or undefined: "algorithm:encoded"; sha256 and sha512 exactly as the image spec registers them. */
export function digestProblem(digest: string): string | undefined {
  if (!DIGEST_RE.test(digest)) return `${JSON.stringify(digest)} is not a valid digest`;
  const [alg, hex] = digest.split(':');
  if (alg === 'sha256' && !/^[a-f0-9]{64}$/.test(hex)) return `${JSON.stringify(digest)} is not a valid sha256 digest (64 lowercase hex digits)`;
  if (alg === 'sha512' && !/^[a-f0-9]{128}$/.test(hex)) return `${JSON.stringify(digest)} is not a valid sha512 digest (128 lowercase hex digits)`;
  if (alg !== 'sha256' && alg !== 'sha512') return `${JSON.stringify(digest)} uses the unsupported digest algorithm ${alg}`;
  return undefined;
}

export class OciReferenceError extends Error {}

/**
 * Parses "registry[:port]/repo/path[:tag][@digest]". `allow` says which suffixes are accepted
 * ('repository': neither; 'any': either or both). Throws OciReferenceError naming the problem.
 */
export function parseOciReference(text: string, allow: 'repository' | 'any' = 'any'): OciReference {
  const slash = text.indexOf('/');
  if (slash <= 0) throw new OciReferenceError(`${JSON.stringify(text)} is not an OCI repository address: expected registry-host[:port]/repository`);
  const registry = text.slice(0, slash).toLowerCase();
  let rest = text.slice(slash + 1);
  let digest: string | undefined;
  let tag: string | undefined;
  const at = rest.indexOf('@');
  if (at >= 0) { digest = rest.slice(at + 1); rest = rest.slice(0, at); }
  const colon = rest.lastIndexOf(':');
  if (colon >= 0) { tag = rest.slice(colon + 1); rest = rest.slice(0, colon); }
  const problem = registryProblem(registry) ?? repositoryProblem(rest, registry)
    ?? (tag !== undefined ? tagProblem(tag) : undefined) ?? (digest !== undefined ? digestProblem(digest) : undefined);
  if (problem) throw new OciReferenceError(`invalid OCI reference ${JSON.stringify(text)}: ${problem}`);
  if (allow === 'repository' && (tag !== undefined || digest !== undefined)) {
    throw new OciReferenceError(`invalid OCI repository address ${JSON.stringify(text)}: a tag or digest is not allowed here`);
  }
  return { registry, repository: rest, ...(tag !== undefined ? { tag } : {}), ...(digest !== undefined ? { digest } : {}) };
}

/** "registry/repository" */
export function repositoryName(r: OciRepository): string {
  return `${r.registry}/${r.repository}`;
}

/** "sha256:…" of bytes. */
export function sha256Digest(bytes: Buffer | string): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}
