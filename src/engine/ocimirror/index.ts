// Provider mirrors in OCI registries (OpenTofu's oci_mirror): pushing (mirror --oci) and the layout.
export * from '../providersources/oci-layout';
export { mirrorToOci, ociProviderInstallation } from './run';
export type { OciMirrorOptions, OciMirrorReport, OciMirrored } from './run';
