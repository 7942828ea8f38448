// The user's OpenTofu CLI configuration: which files tofu reads (locations.ts), one reader for all
// of them (read.ts), and the parts besides credentials that we honour — host blocks and the
// provider_installation methods with their include/exclude patterns (settings.ts, patterns.ts).
// Layer: user settings (docs/architecture.md: it imports only the folders listed below it there).
export { cliConfigLocations, pluginDirs } from './locations';
export type { CliConfigLocations } from './locations';
export { canHandle, matchesAny, parsePattern, parsePatterns, WILDCARD } from './patterns';
export type { ProviderPattern, ProviderRef } from './patterns';
export { parseCliConfig, parseCliConfigHcl, parseCliConfigJson, readCliConfigFiles } from './read';
export type { CliConfigDocument, CliConfigFile } from './read';
export { cliSettingsFrom, loadCliSettings, parseCliSettings } from './settings';
export type { CliSettings, HostOverride, InstallationMethod, InstallationMethodKind, RawCliSettings } from './settings';
