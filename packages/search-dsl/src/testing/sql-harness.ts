import { planSql, runSqlJson, type SqlPage, type SqlRequest } from '../sql/run-sql.ts';
import { CURSOR_KEY, OPENSEARCH_URL, type TestIndex } from './opensearch-harness.ts';

/** Test-only: answers SQL over a test index (table `things`) as the API does, through planSql and runSqlJson. */
export function sqlOver(ix: TestIndex, table = 'things') {
  return async (request: SqlRequest, connectorId: string): Promise<SqlPage> => {
    const bytes = await runSqlJson(
      planSql(request, {
        tables: { [table]: { searchable: ix.searchable, recordKey: ix.recordKey } },
        connectorId,
        cursorKey: CURSOR_KEY,
      }),
      {
        async search(_entity, body) {
          const answer = await fetch(`${OPENSEARCH_URL}/${ix.index}/_search`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(body),
          });
          return { statusCode: answer.status, json: Buffer.from(await answer.arrayBuffer()) };
        },
        // As the API's CopySearch.lookup: the documents by id, from the last refreshed copy.
        async lookup(_entity, ids, includes) {
          const sent = performance.now();
          const answer = await fetch(
            `${OPENSEARCH_URL}/${ix.index}/_mget?realtime=false&filter_path=docs._source,docs.error,error`,
            {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ ids, _source: { includes } }),
            },
          );
          const json = Buffer.from(await answer.arrayBuffer());
          return { statusCode: answer.status, json, engineMs: performance.now() - sent };
        },
      },
    );
    // The API's way: the body as written (bytes for `SELECT *`), parsed as a client would.
    return JSON.parse(bytes.toString('utf8')) as SqlPage;
  };
}
