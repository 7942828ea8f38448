// OCI Distribution registries: credentials as OpenTofu finds them, and the client. Reference and
// repository-template syntax lives in addresses/ (re-exported here).
// Layer: protocols (docs/architecture.md: it imports only the folders listed below it there).
export * from '../addresses/oci-reference';
export * from './credentials';
export * from './client';
export * from '../addresses/oci-template';
export { parseChallenge, mergeScopes } from './auth';
