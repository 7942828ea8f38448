// Registry protocol clients: modules.v1 (versions, download locations), providers.v1 (versions,
// package metadata), the provider network mirror protocol, and provider versions as tofu init
// finds them through the CLI configuration's provider_installation methods (installation.ts).
// Layer: protocols (docs/architecture.md: it imports only the folders listed below it there).
export * from './modules';
export * from './providers';
export * from './network-mirror';
export * from './installation';
