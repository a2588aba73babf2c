export { createEmbedder, type Embedder } from './embedder.ts';
