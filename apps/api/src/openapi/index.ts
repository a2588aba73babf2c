export { documentedOperations, openApiDocument } from './document.ts';
