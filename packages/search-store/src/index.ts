export { ChangeFeedSink } from './change-feed-sink.ts';
export type { ChangeSource } from './change-sink.ts';
export type { UnembeddedText, VectorSource, VectorTarget } from './document-vectors.ts';
export { type IndexRefresh, IndexStore, type WrittenChanges } from './index-store.ts';
export { recordKeyOf, searchDocument } from './search-documents.ts';
export {
  type LookupAnswer,
  lookupRequest,
  opensearchNodes,
  SearchAbandonedError,
  type SearchAnswer,
  SearchQueueFullError,
  searchRequest,
} from './search-transport.ts';
