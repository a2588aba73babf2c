/**
 * Prints the API's OpenAPI document (what GET /openapi.json serves) without starting the API: the client's type
 * generator reads it (packages/client/scripts/generate-types.ts).
 */
import { openApiDocument } from '../src/openapi/index.ts';

process.stdout.write(JSON.stringify(openApiDocument()));
