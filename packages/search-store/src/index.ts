export { CopySearch } from './copy-search.ts';
export { CopyWriter, type IndexedBatch, type IndexRefresh } from './copy-writer.ts';
export type { UnembeddedText, VectorSource, VectorTarget } from './document-vectors.ts';
export { IndexLifecycle } from './index-lifecycle.ts';
export { recordKeyOf, searchDocument } from './search-documents.ts';
export { EngineQueryError, SearchAbandonedError, SearchQueueFullError, SearchTimeoutError } from './search-errors.ts';
export {
  type LookupAnswer,
  lookupRequest,
  opensearchNodes,
  SEARCH_TIMEOUT_MS,
  type SearchAnswer,
  type SearchRequestOptions,
  searchRequest,
} from './search-transport.ts';
