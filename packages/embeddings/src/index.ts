export { createEmbedder, type Embedder, type EmbedderOptions } from './embedder.ts';
