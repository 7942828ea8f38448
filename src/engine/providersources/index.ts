// Every source of a provider package, each fetching into a temp file and verifying what it
// fetched (a failure names the step): the origin registry (providers.v1, shasum, SHA256SUMS and
// its signature) and network mirrors (sources.ts), filesystem mirrors (fs-mirror.ts) and OCI
// mirrors in OpenTofu's layout (oci-source.ts, oci-layout.ts); the steps and failures they
// report (types.ts). mirror, mirror --oci and lock read provider packages only through these.
// Layer: packages (docs/architecture.md: it imports only the folders listed below it there).
export * from './sources';
export { sourceFor } from './source-for';
export type { MirrorEngine } from './source-for';
export { OciSource } from './oci-source';
export { findFsMirrorPackage } from './fs-mirror';
export type { FsMirrorPackage } from './fs-mirror';
export * from './oci-layout';
export { failureDetail, MAX_DETAIL_CHARS, MAX_NAME_CHARS, mirrorFailure, STEP_LABEL } from './types';
export type { MirroredArchive, MirrorFailure, MirrorProgressEvent, MirrorReport, MirrorStep, MirrorTarget } from './types';
