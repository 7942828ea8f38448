// Credentials for a host exactly in OpenTofu's order (cliconfig CredentialsSource.ForHost):
//   1. TF_TOKEN_<host> environment variables;
//   2. a `credentials "HOST"` block of the CLI configuration — even one without a token, which
//      then means "no credentials" (the helper is not asked);
//   3. the `credentials_helper "NAME"` program (helper.ts), unless running it is not allowed
//      (the editor in an untrusted workspace).
// Tokens are keyed by normalised host including port, and never logged or put in messages;
// sources are ("TF_TOKEN_example_com", a file path, `credentials_helper "vault" (/path/…)`).
// Layer: user settings (docs/architecture.md: it imports only the folders listed below it there).
import { hostnameToASCII, tryNormalizeHostname } from '../addresses/hostname';
import { cliConfigLocations, CliConfigLocations } from '../cliconfig/locations';
import { CliConfigFile, readCliConfigFiles } from '../cliconfig/read';
import { CredentialsHelperError, findCredentialsHelper, HELPER_TIMEOUT_MS, runCredentialsHelper } from './helper';

export { CredentialsHelperError, findCredentialsHelper, runCredentialsHelper } from './helper';

export interface CredentialsOptions {
  env?: NodeJS.ProcessEnv;
  /** Like TF_CLI_CONFIG_FILE (takes precedence over it). */
  cliConfigFile?: string;
  log?: (entry: { level: 'debug' | 'info' | 'warn' | 'error'; message: string }) => void;
  /** The CLI configuration as read (the Engine shares its own); default: read cliConfigLocations' files. */
  cliConfig?: () => CliConfigFile[];
  /** False → a credentials_helper is never run (an untrusted workspace). Default: allowed. */
  allowCredentialsHelper?: () => boolean;
  /** How long a helper may take per host (default 10 s). */
  helperTimeoutMs?: number;
  /** How long a helper's answer is reused (default 5 min; failures 30 s). */
  helperCacheMs?: number;
}

export type CredentialKind = 'env' | 'block' | 'helper';

/** What the credentials lookup for a host found. */
export interface HostCredential {
  kind: CredentialKind;
  /** Where it came from: a TF_TOKEN_ variable name, a file path, or `credentials_helper "NAME" (PATH)`. */
  source: string;
  /** Absent: the source has no token for the host (never logged, never in a message). */
  token?: string;
  /** Why a helper gave nothing (not run, not found, failed): safe to show. */
  error?: string;
}

interface StaticCredentials {
  env: Map<string, { token: string; source: string }>;
  blocks: Map<string, { token?: string; file: string }>;
  helper?: { name: string; args: string[]; file: string };
}

export class CredentialStore {
  private loaded?: StaticCredentials;
  private where?: CliConfigLocations;
  private helperPath?: string | null;
  private readonly helperAnswers = new Map<string, { answer: Promise<HostCredential>; expires: number }>();
  private readonly last = new Map<string, HostCredential | undefined>();

  constructor(private readonly opts: CredentialsOptions = {}) {}

  private get env(): NodeJS.ProcessEnv {
    return this.opts.env ?? process.env;
  }

  /** The CLI configuration files and plugin directories OpenTofu would use. */
  locations(): CliConfigLocations {
    return (this.where ??= cliConfigLocations(this.env, this.opts.cliConfigFile));
  }

  /** The CLI configuration files consulted, in merge order. */
  configFiles(): string[] {
    return this.locations().files;
  }

  /** The configured `credentials_helper` (it runs only for hosts without a variable or block). */
  credentialsHelper(): { name: string; args: string[]; file: string } | undefined {
    return this.load().helper;
  }

  /** The credentials for a host ("host[:port]", any spelling), running the helper if it comes to that. */
  async credentialFor(host: string): Promise<HostCredential | undefined> {
    const h = tryNormalizeHostname(host);
    if (typeof h !== 'string') return undefined;
    const found = this.staticCredential(h) ?? (await this.fromHelper(h));
    this.last.set(h, found);
    return found;
  }

  /** Token for a host; undefined when none. */
  async tokenFor(host: string): Promise<string | undefined> {
    return (await this.credentialFor(host))?.token;
  }

  /**
   * Which source answers for a host, without running anything: "env:NAME", "block:FILE" (or
   * "block-without-token:FILE"), "helper:NAME" or "none". Never the token: cache keys use it.
   */
  sourceKey(host: string): string {
    const h = tryNormalizeHostname(host);
    if (typeof h !== 'string') return 'none';
    const s = this.staticCredential(h);
    if (s) return `${s.token === undefined ? 'block-without-token' : s.kind}:${s.source}`;
    const helper = this.load().helper;
    return helper ? `helper:${helper.name} ${JSON.stringify(helper.args)}` : 'none';
  }

  /**
   * For a 401/403 from `host`: where the credentials sent came from, or why none were sent (never
   * the token). A helper's token that was refused is not reused: the helper runs again next time.
   */
  authHint(host: string, sent: boolean): string | undefined {
    const h = tryNormalizeHostname(host);
    if (typeof h !== 'string') return undefined;
    const c = this.last.get(h);
    if (!c) return undefined;
    if (sent && c.token !== undefined) {
      if (c.kind === 'helper') this.helperAnswers.delete(h);
      return `the token sent came from ${c.source}`;
    }
    if (c.error) return `${c.source} gave no token: ${c.error}`;
    if (c.kind === 'block') return `the credentials "${h}" block in ${c.source} has no token`;
    if (c.kind === 'helper') return `${c.source} has no credentials for ${h}`;
    return undefined;
  }

  /** Hosts that have a token from a variable or a block (normalised; helpers are not asked). */
  hosts(): string[] {
    const { env, blocks } = this.load();
    return [...new Set([...env.keys(), ...[...blocks].filter(([, b]) => b.token !== undefined).map(([h]) => h)])];
  }

  /** Forget what was read; the next lookup reads the environment and files again. */
  reload(): void {
    this.loaded = undefined;
    this.where = undefined;
    this.helperPath = undefined;
    this.helperAnswers.clear();
    this.last.clear();
  }

  private staticCredential(h: string): HostCredential | undefined {
    const { env, blocks } = this.load();
    const e = env.get(h);
    if (e) return { kind: 'env', source: e.source, token: e.token };
    const b = blocks.get(h);
    if (b) return { kind: 'block', source: b.file, ...(b.token !== undefined ? { token: b.token } : {}) };
    return undefined;
  }

  private fromHelper(h: string): Promise<HostCredential | undefined> {
    const helper = this.load().helper;
    if (!helper) return Promise.resolve(undefined);
    const cached = this.helperAnswers.get(h);
    if (cached && cached.expires > Date.now()) return cached.answer;
    const label = `credentials_helper "${helper.name}"`;
    if (this.opts.allowCredentialsHelper && !this.opts.allowCredentialsHelper()) {
      return Promise.resolve({ kind: 'helper', source: label, error: 'not run in an untrusted workspace' });
    }
    if (this.helperPath === undefined) this.helperPath = findCredentialsHelper(helper.name, this.locations().pluginDirs) ?? null;
    const path = this.helperPath;
    if (path === null) {
      const error = `terraform-credentials-${helper.name} was not found in ${this.locations().pluginDirs.join(', ')}`;
      return Promise.resolve({ kind: 'helper', source: `${label} (${helper.file})`, error });
    }
    const source = `${label} (${path})`;
    const answer = runCredentialsHelper(path, helper.args, hostnameToASCII(h), { timeoutMs: this.opts.helperTimeoutMs ?? HELPER_TIMEOUT_MS, env: this.env })
      .then((token): HostCredential => {
        this.log('debug', `${source} ${token ? 'gave a token' : 'has no credentials'} for ${h}`);
        return { kind: 'helper', source, ...(token ? { token } : {}) };
      }, (err: unknown): HostCredential => {
        // The reason only (exit code, timeout, bad JSON): what the helper printed is never read.
        const error = err instanceof CredentialsHelperError ? err.message : 'failed';
        this.log('warn', `${source} gave no token for ${h}: ${error}`);
        this.helperAnswers.set(h, { answer, expires: Date.now() + Math.min(30_000, this.opts.helperCacheMs ?? 30_000) });
        return { kind: 'helper', source, error };
      });
    this.helperAnswers.set(h, { answer, expires: Date.now() + (this.opts.helperCacheMs ?? 5 * 60_000) });
    return answer;
  }

  private log(level: 'debug' | 'warn', message: string): void {
    this.opts.log?.({ level, message });
  }

  private load(): StaticCredentials {
    if (this.loaded) return this.loaded;
    const files = this.opts.cliConfig?.() ?? readCliConfigFiles(this.configFiles(), (m) => this.log('warn', m));
    const out: StaticCredentials = { env: new Map(), blocks: new Map() };
    const helpers = new Map<string, { name: string; args: string[]; file: string }>();
    for (const { file, doc } of files) {
      for (const c of doc.credentials) {
        const h = tryNormalizeHostname(c.host);
        if (typeof h !== 'string') { this.log('warn', `ignoring the credentials block for invalid host ${JSON.stringify(c.host)} in ${file}`); continue; }
        out.blocks.set(h, { token: c.token, file }); // later files win (Config.Merge)
      }
      for (const helper of doc.helpers) {
        if (!helper.args) { this.log('warn', `ignoring credentials_helper "${helper.name}" in ${file}: "args" must be a list of strings`); continue; }
        helpers.set(helper.name, { name: helper.name, args: helper.args, file });
      }
    }
    if (helpers.size > 1) this.log('warn', `more than one credentials_helper is configured (${[...helpers.keys()].join(', ')}); OpenTofu allows one, using the last`);
    out.helper = [...helpers.values()].pop();
    for (const [name, value] of Object.entries(this.env)) {
      if (!value || name.length <= 9 || name.slice(0, 9).toUpperCase() !== 'TF_TOKEN_') continue;
      const raw = name.slice(9).replace(/__/g, '-').replace(/_/g, '.');
      const h = tryNormalizeHostname(raw);
      if (typeof h !== 'string') { this.log('warn', `ignoring ${name}: not a valid hostname`); continue; }
      out.env.set(h, { token: value, source: name });
    }
    this.loaded = out;
    return out;
  }
}
