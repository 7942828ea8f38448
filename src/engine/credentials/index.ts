// Credentials from the user's existing OpenTofu configuration: TF_TOKEN_<host> variables,
// `credentials` blocks in ~/.tofurc / ~/.terraformrc / TF_CLI_CONFIG_FILE, and
// credentials.tfrc.json in ~/.terraform.d (ignored when a CLI config file is given explicitly).
// Tokens are keyed by normalised host including port, and never logged.
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { tryNormalizeHostname } from '../addresses/hostname';
import { CliConfigExtras, CredentialEntry, parseCliConfigHcl, parseCliConfigJson } from './cli-config';

export { parseCliConfigHcl, parseCliConfigJson } from './cli-config';

export interface CredentialSource {
  /** "TF_TOKEN_example_com" or a file path: where a host's token came from (never the token). */
  source: string;
}

export interface CredentialsOptions {
  env?: NodeJS.ProcessEnv;
  /** Like TF_CLI_CONFIG_FILE (takes precedence over it). */
  cliConfigFile?: string;
  log?: (entry: { level: 'debug' | 'info' | 'warn' | 'error'; message: string }) => void;
}

export class CredentialStore {
  private tokens?: Map<string, { token: string; source: string }>;
  private helper?: { name: string; file: string };
  constructor(private readonly opts: CredentialsOptions = {}) {}

  /**
   * A `credentials_helper` block in the CLI configuration: tofu-registry does not run credential
   * helpers (it would execute a program named by a config file), so hosts that rely on one get no
   * token. Said once in the log and in 401/403 messages (see authHint).
   */
  credentialsHelper(): { name: string; file: string } | undefined {
    this.load();
    return this.helper;
  }

  /** For an authentication failure at `host`: why no token was sent, when we know (never the token). */
  authHint(host: string): string | undefined {
    const helper = this.credentialsHelper();
    if (!helper || this.tokenFor(host) !== undefined) return undefined;
    return `credentials_helper "${helper.name}" (${helper.file}) is not supported by tofu-registry; set TF_TOKEN_… or a credentials block for this host instead`;
  }

  /** Token for a host ("host[:port]", any spelling); undefined when none. */
  tokenFor(host: string): string | undefined {
    const h = tryNormalizeHostname(host);
    if (typeof h !== 'string') return undefined;
    return this.load().get(h)?.token;
  }

  /** Where the token for `host` comes from (for messages; never the token itself). */
  sourceFor(host: string): string | undefined {
    const h = tryNormalizeHostname(host);
    return typeof h === 'string' ? this.load().get(h)?.source : undefined;
  }

  /** Hosts that have credentials (normalised). */
  hosts(): string[] {
    return [...this.load().keys()];
  }

  /** Forget what was read; the next lookup reads the environment and files again. */
  reload(): void {
    this.tokens = undefined;
    this.helper = undefined;
  }

  /** The CLI configuration files consulted, in order. */
  configFiles(): string[] {
    const env = this.opts.env ?? process.env;
    const explicit = this.opts.cliConfigFile || env.TF_CLI_CONFIG_FILE || env.TERRAFORM_CONFIG;
    if (explicit) return [explicit];
    const home = env.HOME || env.USERPROFILE || homedir();
    const files: string[] = [];
    const tofurc = join(home, '.tofurc');
    const terraformrc = join(home, '.terraformrc');
    if (existsSync(tofurc)) files.push(tofurc);
    else if (existsSync(terraformrc)) files.push(terraformrc);
    files.push(join(home, '.terraform.d', 'credentials.tfrc.json'));
    return files;
  }

  private load(): Map<string, { token: string; source: string }> {
    if (this.tokens) return this.tokens;
    const env = this.opts.env ?? process.env;
    const map = new Map<string, { token: string; source: string }>();
    this.helper = undefined;
    // Files first, then environment variables, which take precedence.
    for (const file of this.configFiles()) {
      let text: string;
      try { text = readFileSync(file, 'utf8'); } catch { continue; }
      let entries: CredentialEntry[];
      const extras: CliConfigExtras = {};
      try {
        entries = file.endsWith('.json') ? parseCliConfigJson(text, extras) : parseCliConfigHcl(text, extras);
      } catch {
        this.opts.log?.({ level: 'warn', message: `could not read credentials from ${file}` });
        continue;
      }
      if (extras.helper && !this.helper) {
        this.helper = { name: extras.helper, file };
        this.opts.log?.({ level: 'warn', message: `${file} configures credentials_helper "${extras.helper}", which tofu-registry does not run: hosts without a TF_TOKEN_… variable or credentials block get no token` });
      }
      for (const e of entries) {
        const h = tryNormalizeHostname(e.host);
        if (typeof h !== 'string') {
          this.opts.log?.({ level: 'warn', message: `ignoring credentials for invalid host ${JSON.stringify(e.host)} in ${file}` });
          continue;
        }
        map.set(h, { token: e.token, source: file });
      }
    }
    for (const [name, value] of Object.entries(env)) {
      if (!value || name.length <= 9 || name.slice(0, 9).toUpperCase() !== 'TF_TOKEN_') continue;
      const raw = name.slice(9).replace(/__/g, '-').replace(/_/g, '.');
      const h = tryNormalizeHostname(raw);
      if (typeof h !== 'string') {
        this.opts.log?.({ level: 'warn', message: `ignoring ${name}: not a valid hostname` });
        continue;
      }
      map.set(h, { token: value, source: name });
    }
    this.tokens = map;
    return map;
  }
}
