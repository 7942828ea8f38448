// Provider mirrors in OCI registries (OpenTofu's oci_mirror): pushing (mirror --oci) and the layout.
// Layer: jobs (docs/architecture.md: it imports only the folders listed below it there).
export * from '../providersources/oci-layout';
export { mirrorToOci, ociProviderInstallation } from './run';
export type { OciMirrorOptions, OciMirrorReport, OciMirrored } from './run';
