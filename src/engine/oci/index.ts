// OCI Distribution registries: references, credentials as OpenTofu finds them, and the client.
export * from './reference';
export * from './credentials';
export * from './client';
export * from './template';
export { parseChallenge, mergeScopes } from './auth';
