// Publishing: publish-module pushes a module directory to an OCI registry as the artifact OpenTofu
// installs (publish.ts), its deterministic package zip built by package-zip.ts.
// Layer: jobs (docs/architecture.md: it imports only the folders listed below it there).
export * from './publish';
export * from './package-zip';
