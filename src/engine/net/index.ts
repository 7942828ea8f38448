// The engine's one HTTP client (undici: timeouts, size caps, bounded redirects, retries, proxy,
// CA files) and its errors: RegistryError, messages that name host and URL with secrets redacted
// (shownUrl, redactUrls), and bounded JSON parsing for anything read from a registry or a file.
// Layer: IO with limits (docs/architecture.md: it imports only the folders listed below it there).
export { HttpClient, DOWNLOAD_DEADLINE_MS, formatBytes, MiB, parseJsonBody } from './http';
export type { HttpClientOptions, HttpResponse, JsonResponse, RequestOptions } from './http';
export { isRegistryError, RegistryError, rewordNotFound } from './errors';
export type { RegistryErrorCode, RegistryErrorInit } from './errors';
export { errorText, hostOf, redactUrls, shortText, shownUrl } from './http-errors';
export { CONNECTIONS_PER_ORIGIN, extraCaCertificates, proxySettings } from './dispatcher';
export { jsonTooDeep, MAX_JSON_DEPTH, parseJsonBounded } from './json-depth';
