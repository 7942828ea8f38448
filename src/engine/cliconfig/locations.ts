// Where OpenTofu finds its CLI configuration and its credentials helpers
// (internal/command/cliconfig: cliconfig.go LoadConfig, config_unix.go / config_windows.go, and
// cmd/tofu/plugins.go globalPluginDirs):
//
//   TF_CLI_CONFIG_FILE (or TERRAFORM_CONFIG) set → that one file, nothing else.
//   Otherwise the main file — ~/.tofurc, or ~/.terraformrc when only that one exists, or
//   $XDG_CONFIG_HOME/opentofu/tofurc when neither exists (Windows: %APPDATA%/terraform.rc or
//   tofu.rc) — then every *.tfrc and *.tfrc.json (credentials.tfrc.json among them) in the
//   configuration directories, by name. The directory is ~/.terraform.d, or
//   $XDG_CONFIG_HOME/opentofu when ~/.terraform.d does not exist; $XDG_CONFIG_DIRS/opentofu
//   directories come before it. Later files win (Config.Merge), so a directory's file overrides
//   the main file, and ~/.terraform.d overrides $XDG_CONFIG_DIRS.
//   Credentials helpers: terraform-credentials-NAME[_vX.Y.Z] in DATA/plugins and
//   DATA/plugins/OS_ARCH for DATA in ~/.terraform.d and $XDG_DATA_HOME/opentofu.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { currentPlatform } from '../providerpkg/platform';

export interface CliConfigLocations {
  /** The files to read, lowest precedence first (missing ones are skipped when read). */
  files: string[];
  /** Where a `credentials_helper "NAME"` program is looked for, in OpenTofu's order. */
  pluginDirs: string[];
  /** The main file was named by TF_CLI_CONFIG_FILE / the setting: nothing else is read. */
  explicit: boolean;
}

const isWindows = () => process.platform === 'win32';

function home(env: NodeJS.ProcessEnv): string {
  if (isWindows()) return env.APPDATA || join(env.USERPROFILE || homedir(), 'AppData', 'Roaming');
  return env.HOME || homedir();
}

function exists(path: string): boolean {
  try { statSync(path); return true; } catch { return false; }
}

/** OpenTofu's getNewOrLegacyPath: the legacy name only when it exists and the new one does not. */
function newOrLegacy(newPath: string, legacyPath: string): string {
  return exists(legacyPath) && !exists(newPath) ? legacyPath : newPath;
}

function mainFile(env: NodeJS.ProcessEnv): string {
  const dir = home(env);
  // (config_windows.go names terraform.rc "new" and tofu.rc "legacy"; kept as OpenTofu has it)
  if (isWindows()) return newOrLegacy(join(dir, 'terraform.rc'), join(dir, 'tofu.rc'));
  const tofurc = join(dir, '.tofurc');
  const terraformrc = join(dir, '.terraformrc');
  if (env.XDG_CONFIG_HOME && !exists(tofurc) && !exists(terraformrc)) return join(env.XDG_CONFIG_HOME, 'opentofu', 'tofurc');
  return newOrLegacy(tofurc, terraformrc);
}

/** Configuration directories, lowest precedence first. */
function configDirs(env: NodeJS.ProcessEnv): string[] {
  const dir = home(env);
  if (isWindows()) return [join(dir, 'terraform.d')];
  let own = join(dir, '.terraform.d');
  if (!exists(own) && env.XDG_CONFIG_HOME) own = join(env.XDG_CONFIG_HOME, 'opentofu');
  const shared = (env.XDG_CONFIG_DIRS ?? '').split(delimiter).filter(Boolean).map((d) => join(d, 'opentofu'));
  return [...shared.reverse(), own];
}

/** *.tfrc and *.tfrc.json in a directory, sorted by name as Go's os.ReadDir returns them. */
function configFilesIn(dir: string): string[] {
  let names: string[];
  try { names = readdirSync(dir); } catch { return []; }
  return names.filter((n) => n.endsWith('.tfrc') || n.endsWith('.tfrc.json'))
    .sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)))
    .map((n) => join(dir, n))
    .filter((f) => { try { return statSync(f).isFile(); } catch { return false; } });
}

/** Directories searched for credentials helpers (OpenTofu's globalPluginDirs). */
export function pluginDirs(env: NodeJS.ProcessEnv): string[] {
  const dir = home(env);
  const data = isWindows() ? [join(dir, 'terraform.d')] : [join(dir, '.terraform.d'), ...(env.XDG_DATA_HOME ? [join(env.XDG_DATA_HOME, 'opentofu')] : [])];
  return data.flatMap((d) => [join(d, 'plugins'), join(d, 'plugins', currentPlatform())]);
}

/**
 * The CLI configuration files OpenTofu reads, in merge order. `explicitFile` (the extension's
 * setting, or the CLI's TF_CLI_CONFIG_FILE) takes precedence over the environment.
 */
export function cliConfigLocations(env: NodeJS.ProcessEnv, explicitFile?: string): CliConfigLocations {
  const explicit = explicitFile || env.TF_CLI_CONFIG_FILE || env.TERRAFORM_CONFIG;
  if (explicit) return { files: [explicit], pluginDirs: pluginDirs(env), explicit: true };
  const main = mainFile(env);
  const files = [...(existsSync(main) ? [main] : []), ...configDirs(env).flatMap(configFilesIn)];
  return { files, pluginDirs: pluginDirs(env), explicit: false };
}
