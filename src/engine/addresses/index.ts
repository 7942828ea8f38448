// Address syntax, as tofu reads it: hostnames (IDNA), module sources (registry, local, go-getter's
// forms, oci://), provider source addresses, OCI references and repository templates.
// Layer: syntax and data (docs/architecture.md: it imports only the folders listed below it there).
export * from './hostname';
export * from './module-source';
export * from './provider-source';
export * from './oci-source';
export {
  OciReferenceError, parseOciReference, registryProblem, repositoryName, repositoryProblem, sha256Digest, tagProblem,
} from './oci-reference';
export type { OciReference, OciRepository } from './oci-reference';
export * from './oci-template';
