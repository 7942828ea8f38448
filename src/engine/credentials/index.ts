// Credentials from the user's existing OpenTofu configuration: TF_TOKEN_<host> variables,
// `credentials` blocks in ~/.tofurc / ~/.terraformrc / TF_CLI_CONFIG_FILE, and
// credentials.tfrc.json in ~/.terraform.d (ignored when a CLI config file is given explicitly).
// Tokens are keyed by normalised host including port, and never logged.
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { tryNormalizeHostname } from '../addresses/hostname';
import { CredentialEntry, parseCliConfigHcl, parseCliConfigJson } from './cli-config';

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
  constructor(private readonly opts: CredentialsOptions = {}) {}

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
    // Files first, then environment variables, which take precedence.
    for (const file of this.configFiles()) {
      let text: string;
      try { text = readFileSync(file, 'utf8'); } catch { continue; }
      let entries: CredentialEntry[];
      try {
        entries = file.endsWith('.json') ? parseCliConfigJson(text) : parseCliConfigHcl(text);
      } catch {
        this.opts.log?.({ level: 'warn', message: `could not read credentials from ${file}` });
        continue;
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
