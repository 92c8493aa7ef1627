/** The API package version, reported by `GET /health/version`. Kept in sync with package.json by a test. */
export const API_VERSION = '0.1.0';
