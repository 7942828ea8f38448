// Versions and constraints under both of OpenTofu's rule sets (modules, providers), and the
// selection tofu init makes.
// Layer: syntax and data (docs/architecture.md: it imports only the folders listed below it there).
export * from './version';
export * from './constraints';
export * from './select';
export { compareIdentifiers } from './semver-identifiers';
