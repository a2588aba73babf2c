import { defineConfig } from 'vite';

// Preact through esbuild's automatic JSX runtime: no Babel, no dev-server plugins (the API serves the build).
export default defineConfig({
  base: '/console/',
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  build: { outDir: 'dist', emptyOutDir: true, target: 'es2022', sourcemap: false },
});
