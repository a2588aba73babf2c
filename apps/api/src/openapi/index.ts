export { type DocumentedOperation, documentedOperations, openApiDocument } from './document.ts';
