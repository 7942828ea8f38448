// Credentials for an OCI repository exactly as OpenTofu selects them
// (internal/command/cliconfig/oci_credentials.go and ociauthconfig/, docs "OCI Registry Credentials"):
//   1. `oci_credentials "HOST[/PREFIX]"` blocks of the CLI configuration (username + password,
//      access_token + refresh_token, or docker_credentials_helper);
//   2. `oci_default_credentials { docker_credentials_helper = "NAME" }`: a global helper;
//   3. unless `discover_ambient_credentials = false`: Docker-style files — `docker_style_config_files`
//      when given, else $XDG_RUNTIME_DIR/containers/auth.json (Linux), ~/.config/containers/auth.json
//      (macOS, Windows), $XDG_CONFIG_HOME/containers/auth.json, ~/.docker/config.json, ~/.dockercfg —
//      each with `auths` (by "host" or "host/repo/prefix"), `credHelpers` (by host) and `credsStore`.
// The candidate whose pattern matches the most of the repository wins (global < host < each path
// segment); among equals the earliest wins, so explicit blocks beat files and files keep the order
// above. A helper (`docker-credential-NAME get`, the server URL on stdin) runs only when its
// candidate wins, with the credentials helpers' environment (credentials/child-env.ts), bounded in
// time and output, its stderr never read. Secrets never appear in a message, a log or a key.
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { readFileSync } from 'node:fs';
import type { CliConfigFile } from '../cliconfig/read';
import { CredentialsHelperError, jsonObject, runHelperProgram, HELPER_TIMEOUT_MS } from '../credentials/helper';
import { parseJsonBounded } from '../net/json-depth';
import { OciRepository, parseOciReference, registryProblem } from '../addresses/oci-reference';

/** What a registry's auth flow uses: Basic (username/password), a bearer token as is, or an OAuth2 refresh token. */
export interface OciCredential {
  username?: string;
  password?: string;
  accessToken?: string;
  refreshToken?: string;
}

/** The winning source for a repository. */
export interface OciCredentialAnswer {
  /** Absent when the source had nothing (a helper that failed or knew no credentials: `error` says why). */
  credential?: OciCredential;
  /** Where they came from, for messages: never a secret. */
  source: string;
  error?: string;
}

/** How specific a match is: 1 global, 2 the registry, 2 + n a repository prefix of n segments. */
export type Specificity = number;
export const GLOBAL_SPECIFICITY = 1;
export const DOMAIN_SPECIFICITY = 2;

/** One place that may answer for a repository, before any helper runs. */
export interface OciCredentialCandidate {
  specificity: Specificity;
  source: string;
  credential?: OciCredential;
  /** A docker-credential-NAME program to ask, with the server URL it is asked about. */
  helper?: { name: string; serverUrl: string };
}

export interface OciCredentialsOptions {
  env?: NodeJS.ProcessEnv;
  /** The CLI configuration files as read (the engine shares its own). */
  cliConfig?: () => CliConfigFile[];
  /** Default: os.platform(); decides the ambient file locations as OpenTofu does. */
  platform?: NodeJS.Platform;
  /** False → no docker-credential-* program is run (an untrusted workspace). */
  allowHelpers?: () => boolean;
  helperTimeoutMs?: number;
  log?: (entry: { level: 'debug' | 'info' | 'warn' | 'error'; message: string }) => void;
}

interface ExplicitBlock { prefix: string; file: string; credential?: OciCredential; helper?: string }
interface DockerFile { file: string; auths: Map<string, OciCredential>; credHelpers: Map<string, string>; credsStore?: string }
interface Loaded {
  explicit: ExplicitBlock[];
  defaultHelper?: { name: string; file: string };
  files: DockerFile[];
  /** Where credentials were looked for, for the message of a 401. */
  searched: string[];
}

const HELPER_NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/**
 * How specifically a pattern ("host" or "host/repo/prefix", as in `auths` and oci_credentials labels)
 * matches a repository: 0 no match, 2 the host, 2 + n a prefix of n whole path segments
 * (ociauthconfig.ContainersAuthPropertyNameMatch).
 */
export function patternSpecificity(pattern: string, registry: string, repository: string): Specificity {
  if (!pattern) return 0;
  let host = pattern;
  let path = '';
  if (pattern.includes('/')) {
    try {
      const ref = parseOciReference(pattern, 'repository');
      host = ref.registry;
      path = ref.repository;
    } catch { return 0; }
  } else if (registryProblem(pattern.toLowerCase())) return 0;
  if (host.toLowerCase() !== registry.toLowerCase()) return 0;
  if (!path) return DOMAIN_SPECIFICITY;
  const want = repository.split('/');
  const got = path.split('/');
  if (got.length > want.length || got.some((seg, i) => seg !== want[i])) return 0;
  return DOMAIN_SPECIFICITY + got.length;
}

/** The Docker-style files OpenTofu reads by default, in its order (duplicates next to each other dropped). */
export function ambientDockerFiles(env: NodeJS.ProcessEnv, platform: NodeJS.Platform = process.platform): string[] {
  const home = env.HOME || env.USERPROFILE || homedir();
  const out: string[] = [];
  if (platform === 'linux') {
    if (env.XDG_RUNTIME_DIR) out.push(join(env.XDG_RUNTIME_DIR, 'containers', 'auth.json'));
  } else if (platform === 'darwin' || platform === 'win32') {
    out.push(join(home, '.config', 'containers', 'auth.json'));
  }
  out.push(join(env.XDG_CONFIG_HOME || join(home, '.config'), 'containers', 'auth.json'));
  out.push(join(home, '.docker', 'config.json'));
  out.push(join(home, '.dockercfg'));
  return out.filter((f, i) => f !== out[i - 1]);
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

export class OciCredentials {
  private loaded?: Loaded;
  private readonly helperAnswers = new Map<string, { answer: Promise<OciCredentialAnswer>; expires: number }>();

  constructor(private readonly opts: OciCredentialsOptions = {}) {}

  private get env(): NodeJS.ProcessEnv {
    return this.opts.env ?? process.env;
  }

  /** Every candidate that matches the repository, best first (ties: the earliest source first). */
  candidates(repo: OciRepository): OciCredentialCandidate[] {
    const { explicit, defaultHelper, files } = this.load();
    const { registry, repository } = repo;
    const found: OciCredentialCandidate[] = [];
    const serverUrl = `https://${registry}`;
    for (const b of explicit) {
      const specificity = patternSpecificity(b.prefix, registry, repository);
      if (!specificity) continue;
      const source = `oci_credentials "${b.prefix}" in ${b.file}`;
      found.push(b.helper ? { specificity, source, helper: { name: b.helper, serverUrl } } : { specificity, source, credential: b.credential });
    }
    if (defaultHelper) {
      found.push({ specificity: GLOBAL_SPECIFICITY, source: `oci_default_credentials in ${defaultHelper.file}`, helper: { name: defaultHelper.name, serverUrl } });
    }
    for (const f of files) {
      for (const [pattern, credential] of f.auths) {
        const specificity = patternSpecificity(pattern, registry, repository);
        if (specificity) found.push({ specificity, source: `"auths" entry "${pattern}" in ${f.file}`, credential });
      }
      const helper = f.credHelpers.get(registry);
      if (helper) found.push({ specificity: DOMAIN_SPECIFICITY, source: `"credHelpers" entry "${registry}" in ${f.file}`, helper: { name: helper, serverUrl } });
      if (f.credsStore) found.push({ specificity: GLOBAL_SPECIFICITY, source: `"credsStore" in ${f.file}`, helper: { name: f.credsStore, serverUrl } });
    }
    // a stable sort: equal specificity keeps the order sources were listed in
    return found.sort((a, b) => b.specificity - a.specificity);
  }

  /** The winning source for a repository (running its helper if it is one), or undefined when nothing matches. */
  async lookup(repo: OciRepository): Promise<OciCredentialAnswer | undefined> {
    const best = this.candidates(repo)[0];
    if (!best) return undefined;
    if (!best.helper) return { source: best.source, credential: best.credential };
    return this.askHelper(best.helper.name, best.helper.serverUrl, best.source);
  }

  /** Which source answers for a repository, without running anything (for cache keys; never a secret). */
  sourceKey(repo: OciRepository): string {
    const best = this.candidates(repo)[0];
    return best ? best.source : 'none';
  }

  /** Where credentials are looked for (files and blocks), for a message after a 401. */
  searched(): string[] {
    return this.load().searched;
  }

  /** Forget what was read and what helpers answered. */
  reload(): void {
    this.loaded = undefined;
    this.helperAnswers.clear();
  }

  /** A helper's answer is reused for 5 minutes (a failure 30 s); a rejected one is forgotten by `forget`. */
  forget(repo: OciRepository): void {
    for (const key of [...this.helperAnswers.keys()]) if (key.endsWith(` https://${repo.registry}`)) this.helperAnswers.delete(key);
  }

  private askHelper(name: string, serverUrl: string, via: string): Promise<OciCredentialAnswer> {
    const source = `docker-credential-${name} (${via})`;
    const key = `${name} ${serverUrl}`;
    const cached = this.helperAnswers.get(key);
    if (cached && cached.expires > Date.now()) return cached.answer;
    if (this.opts.allowHelpers && !this.opts.allowHelpers()) return Promise.resolve({ source, error: 'not run in an untrusted workspace' });
    if (!HELPER_NAME_RE.test(name)) return Promise.resolve({ source, error: `${JSON.stringify(name)} is not a valid credential helper name` });
    const answer = runHelperProgram(`docker-credential-${name}`, ['get'], { stdin: serverUrl, env: this.env, timeoutMs: this.opts.helperTimeoutMs ?? HELPER_TIMEOUT_MS })
      .then((stdout): OciCredentialAnswer => {
        const doc = jsonObject(stdout, '{"Username": "…", "Secret": "…"}');
        const username = str(doc.Username) ?? '';
        const secret = str(doc.Secret) ?? '';
        if (!secret) return { source, error: `no credentials for ${serverUrl}` };
        // Docker's convention: the user name "<token>" marks an identity (refresh) token
        return { source, credential: username === '<token>' ? { refreshToken: secret } : { username, password: secret } };
      }, (err: unknown): OciCredentialAnswer => {
        const error = err instanceof CredentialsHelperError ? err.message : 'failed';
        this.helperAnswers.set(key, { answer, expires: Date.now() + 30_000 });
        return { source, error };
      });
    this.helperAnswers.set(key, { answer, expires: Date.now() + 5 * 60_000 });
    return answer;
  }

  private warn(message: string): void {
    this.opts.log?.({ level: 'warn', message });
  }

  private load(): Loaded {
    if (this.loaded) return this.loaded;
    const out: Loaded = { explicit: [], files: [], searched: [] };
    let discover = true;
    let dockerFiles: string[] | undefined;
    let seenDefault = false;
    const configFiles: string[] = [];
    for (const { file, doc } of this.opts.cliConfig?.() ?? []) {
      for (const block of doc.ociCredentials ?? []) {
        const b = this.explicitBlock(block.prefix, block.attrs, file);
        if (b) { out.explicit.push(b); if (!configFiles.includes(file)) configFiles.push(file); }
      }
      for (const d of doc.ociDefaultCredentials ?? []) {
        if (seenDefault) { this.warn(`ignoring a second oci_default_credentials block in ${file}: OpenTofu allows one`); continue; }
        seenDefault = true;
        if (d.discover_ambient_credentials === false) discover = false;
        const files = d.docker_style_config_files;
        if (Array.isArray(files) && files.every((f) => typeof f === 'string')) {
          dockerFiles = (files as string[]).map((f) => (isAbsolute(f) ? f : resolve(dirname(file), f)));
        } else if (files !== undefined) this.warn(`ignoring docker_style_config_files in ${file}: it must be a list of strings`);
        const helper = str(d.docker_credentials_helper);
        if (helper !== undefined) {
          if (HELPER_NAME_RE.test(helper)) out.defaultHelper = { name: helper, file };
          else this.warn(`ignoring docker_credentials_helper ${JSON.stringify(helper)} in ${file}: not a valid credential helper name`);
        }
      }
    }
    if (configFiles.length) out.searched.push(`oci_credentials blocks in ${configFiles.join(', ')}`);
    if (out.defaultHelper) out.searched.push(`docker-credential-${out.defaultHelper.name} (oci_default_credentials in ${out.defaultHelper.file})`);
    if (discover) {
      const paths = dockerFiles ?? ambientDockerFiles(this.env, this.opts.platform);
      for (const path of paths) {
        const f = this.dockerFile(path, dockerFiles !== undefined);
        if (f) out.files.push(f);
      }
      out.searched.push(`Docker-style files ${paths.join(', ')}${out.files.length ? '' : ' (none found)'}`);
    } else {
      out.searched.push('no Docker-style files (discover_ambient_credentials = false)');
    }
    this.loaded = out;
    return out;
  }

  private explicitBlock(prefix: string, attrs: Record<string, unknown>, file: string): ExplicitBlock | undefined {
    const where = `oci_credentials "${prefix}" in ${file}`;
    if (!patternSpecificity(prefix, prefix.split('/')[0], prefix.split('/').slice(1).join('/') || 'x')) {
      this.warn(`ignoring ${where}: the label must be a registry host name, optionally followed by a repository path prefix`);
      return undefined;
    }
    const username = str(attrs.username);
    const password = str(attrs.password);
    const accessToken = str(attrs.access_token);
    const refreshToken = str(attrs.refresh_token);
    const helper = str(attrs.docker_credentials_helper);
    const styles = [username !== undefined || password !== undefined, accessToken !== undefined || refreshToken !== undefined, helper !== undefined].filter(Boolean).length;
    if (styles !== 1) {
      this.warn(`ignoring ${where}: it must set exactly one of username + password, access_token + refresh_token, or docker_credentials_helper`);
      return undefined;
    }
    if (helper !== undefined) {
      if (!HELPER_NAME_RE.test(helper)) { this.warn(`ignoring ${where}: ${JSON.stringify(helper)} is not a valid credential helper name`); return undefined; }
      return { prefix, file, helper };
    }
    if (username !== undefined || password !== undefined) {
      if (!username || password === undefined) { this.warn(`ignoring ${where}: username and password must be set together`); return undefined; }
      return { prefix, file, credential: { username, password } };
    }
    if (!accessToken || !refreshToken) { this.warn(`ignoring ${where}: access_token and refresh_token must be set together`); return undefined; }
    return { prefix, file, credential: { accessToken, refreshToken } };
  }

  private dockerFile(path: string, explicit: boolean): DockerFile | undefined {
    let text: string;
    try { text = readFileSync(path, 'utf8'); } catch (err) {
      if (explicit || (err as NodeJS.ErrnoException).code !== 'ENOENT') this.warn(`could not read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
      return undefined;
    }
    if (text.length > 4 * 1024 * 1024) { this.warn(`ignoring ${path}: larger than 4 MiB`); return undefined; }
    let doc: Record<string, unknown>;
    try {
      const parsed = parseJsonBounded(text);
      if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not a JSON object');
      doc = parsed as Record<string, unknown>;
    } catch (err) {
      this.warn(`ignoring ${path}: invalid JSON (${(err as Error).message.slice(0, 200)})`);
      return undefined;
    }
    const f: DockerFile = { file: path, auths: new Map(), credHelpers: new Map() };
    const auths = doc.auths;
    if (auths && typeof auths === 'object' && !Array.isArray(auths)) {
      for (const [pattern, entry] of Object.entries(auths as Record<string, unknown>)) {
        if (!entry || typeof entry !== 'object') continue;
        const e = entry as Record<string, unknown>;
        const identityToken = str(e.identitytoken);
        const auth = str(e.auth);
        let username: string | undefined;
        let password: string | undefined;
        if (auth) {
          const decoded = Buffer.from(auth, 'base64').toString('utf8');
          const colon = decoded.indexOf(':');
          if (colon < 0) { this.warn(`ignoring "auths" entry "${pattern}" in ${path}: "auth" is not a base64-encoded username:password pair`); continue; }
          username = decoded.slice(0, colon);
          password = decoded.slice(colon + 1);
        }
        // an identity token (docker login to a registry with OAuth2) is a refresh token for the token flow
        if (identityToken) f.auths.set(pattern, { refreshToken: identityToken, ...(username ? { username } : {}) });
        else if (username !== undefined) f.auths.set(pattern, { username, password });
      }
    }
    const helpers = doc.credHelpers;
    if (helpers && typeof helpers === 'object' && !Array.isArray(helpers)) {
      for (const [host, name] of Object.entries(helpers as Record<string, unknown>)) {
        if (typeof name === 'string' && name) f.credHelpers.set(host.toLowerCase(), name);
      }
    }
    const store = str(doc.credsStore);
    if (store) f.credsStore = store;
    return f;
  }
}
