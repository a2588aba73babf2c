import { documentedOperations } from './document.ts';

const escapeHtml = (text: string) =>
  text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

/** A self-contained API reference page (no external scripts: the docs work offline). */
export function docsPage(): string {
  const sections = documentedOperations()
    .map((op) => {
      const examples = (op.examples ?? [])
        .map(
          (e) =>
            `<details><summary>${escapeHtml(e.summary)}</summary><pre>${escapeHtml(JSON.stringify(e.value, null, 2))}</pre></details>`,
        )
        .join('');
      const statuses = Object.keys(op.responses).join(', ');
      return `<section><h2><code>${op.method.toUpperCase()} ${escapeHtml(op.path)}</code></h2><p>${escapeHtml(op.summary)}</p>
<p>Auth: ${op.auth ? 'Bearer token' : 'none'} · Responses: ${statuses} (errors are application/problem+json)</p>${examples}</section>`;
    })
    .join('\n');
  return `<!doctype html><html><head><meta charset="utf-8"><title>Conduit API reference</title>
<style>body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}pre{background:#f4f4f4;padding:.5rem;overflow:auto}section{border-top:1px solid #ddd;padding:.5rem 0}</style>
</head><body><h1>Conduit API reference</h1><p>Machine-readable: <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1).</p>${sections}</body></html>`;
}
