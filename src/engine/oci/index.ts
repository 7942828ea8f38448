// OCI Distribution registries: references, credentials as OpenTofu finds them, and the client.
export * from '../addresses/oci-reference';
export * from './credentials';
export * from './client';
export * from '../addresses/oci-template';
export { parseChallenge, mergeScopes } from './auth';
