// A provider package's bytes, wherever it came from: hashes exactly as OpenTofu computes them
// (h1:, zh:; on worker threads for large files), the SHA256SUMS document and its OpenPGP
// signature, the size-capped verified download to a file, and platforms ("os_arch").
// No protocol and no address: the package sources above (providersources/) and the lock file
// format below the jobs share these.
// Layer: IO with limits (docs/architecture.md: it imports only the folders listed below it there).
export * from './hash';
export * from './signature';
export * from './platform';
export { downloadToFile, DownloadTooLargeError, DownloadTruncatedError, withoutUrl } from './download';
export type { ArchiveDownloader, DownloadResponse, StreamedFile } from './download';
