import { planSql, runSql, type SqlPage, type SqlRequest } from '../sql/run-sql.ts';
import { CURSOR_KEY, OPENSEARCH_URL, type TestIndex } from './opensearch-harness.ts';

/** Test-only: answers SQL over a test index (table `things`) as the API does, through planSql and runSql. */
export function sqlOver(ix: TestIndex, table = 'things') {
  return (request: SqlRequest, connectorId: string): Promise<SqlPage> =>
    runSql(
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
        // As the API's IndexStore.lookup: the documents by id, from the last refreshed copy.
        async lookup(_entity, ids, includes) {
          const answer = await fetch(
            `${OPENSEARCH_URL}/${ix.index}/_mget?realtime=false&filter_path=docs._source,docs.error,error`,
            {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ ids, _source: { includes } }),
            },
          );
          return { statusCode: answer.status, json: Buffer.from(await answer.arrayBuffer()) };
        },
      },
    );
}
