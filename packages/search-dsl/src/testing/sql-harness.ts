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
      async (_entity, body) => {
        const answer = await fetch(`${OPENSEARCH_URL}/${ix.index}/_search`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        return { statusCode: answer.status, json: Buffer.from(await answer.arrayBuffer()) };
      },
    );
}
