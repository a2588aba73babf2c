import type { KindCatalog } from '@conduit/connectors';
import { redactForAudit } from '@conduit/trusted-calls';
import { z } from 'zod';

const fieldsByCatalog = new WeakMap<KindCatalog, ReadonlySet<string>>();

/** The names of a kind's credential fields (every branch of its credentials schema), computed once per kind. */
function credentialFields(catalog: KindCatalog): ReadonlySet<string> {
  let fields = fieldsByCatalog.get(catalog);
  if (!fields) {
    const names = new Set<string>();
    collectProperties(z.toJSONSchema(catalog.credentials, { unrepresentable: 'any' }), names);
    fields = names;
    fieldsByCatalog.set(catalog, fields);
  }
  return fields;
}

function collectProperties(schema: unknown, into: Set<string>): void {
  if (schema === null || typeof schema !== 'object') return;
  const node = schema as {
    properties?: Record<string, unknown>;
    anyOf?: unknown[];
    oneOf?: unknown[];
    allOf?: unknown[];
  };
  for (const [name, child] of Object.entries(node.properties ?? {})) {
    into.add(name);
    collectProperties(child, into);
  }
  for (const branch of [...(node.anyOf ?? []), ...(node.oneOf ?? []), ...(node.allOf ?? [])])
    collectProperties(branch, into);
}

/** Execute params as the audit trail keeps them: the kind's credential fields and anything named like a secret redacted. */
export function auditParams(catalog: KindCatalog, params: unknown): unknown {
  return redactForAudit(params ?? {}, credentialFields(catalog));
}
