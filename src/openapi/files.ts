/** The generated OpenAPI files and their builders (used by `npm run openapi` and the staleness test). */
import { buildAdapterDocument } from './adapter-document.js';
import { buildApiDocument } from './document.js';

export const OPENAPI_FILES = [
  { file: 'docs/openapi.json', build: buildApiDocument },
  { file: 'docs/openapi.adapter.json', build: buildAdapterDocument },
] as const;
