// The error of fetching a module package (download, clone, extraction, subdirectory), shared by
// the archive fetcher and the git runner. `unsupported`: the source type itself cannot be fetched
// (s3::, gcs::, hg::, oci://…), so retrying cannot help.
export class ModuleFetchError extends Error {
  constructor(message: string, readonly url?: string, readonly unsupported = false) { super(message); }
}
