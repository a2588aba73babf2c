/**
 * A kind the platform does not ship, defined at run time from docs/definitions.md alone, against an upstream no other
 * test knows: records nested in `result.items` behind a cursor, people behind RFC 8288 Link headers.
 */
export function tasklaneDefinition(baseUrl: string) {
  return {
    name: 'Tasklane',
    base_url: `${baseUrl}/v3`,
    auth: { type: 'api_key', in: 'header', name: 'X-Tasklane-Key' },
    rate_limit: { per_second: 20, scope: 'per key' },
    errors: { message_at: 'error.message' },
    entities: {
      tasks: {
        key: 'id',
        fields: {
          id: 'integer!',
          title: 'string',
          status: { type: 'string', enum: ['open', 'doing', 'done'] },
          estimate: 'decimal',
          assignee: { type: 'object', fields: { name: 'string', email: 'string' } },
          labels: { type: 'array', items: 'string' },
          updated_at: 'datetime',
        },
        searchable: 'all',
        list: {
          path: '/tasks',
          records: 'result.items',
          params: {
            limit: { type: 'integer', minimum: 1, maximum: 100 },
            updated_since: { type: 'datetime' },
          },
          paging: { type: 'cursor', param: 'cursor', next_at: 'paging.next' },
        },
        get: { path: '/tasks/{id}', record: 'data' },
        create: {
          method: 'POST',
          path: '/tasks',
          record: 'data',
          params: { title: { type: 'string', required: true, max_length: 200 } },
        },
        replication: {
          mode: 'incremental',
          cursor_field: 'updated_at',
          since: { param: 'updated_since', format: 'iso' },
          sees_edits: true,
          sees_deletions: false,
          page_params: { limit: 100 },
        },
      },
      people: {
        key: 'login',
        fields: { login: 'string!', name: 'string', active: 'boolean' },
        searchable: 'all',
        list: {
          path: '/people',
          records: null,
          params: { per_page: { type: 'integer', minimum: 1, maximum: 50 } },
          paging: { type: 'link_header', param: 'page' },
        },
        replication: { mode: 'full_refresh', page_params: { per_page: 50 } },
      },
    },
  };
}
