/**
 * The catalog replaces vendor names inside identifiers by neutral words: incident.io's `slack_channel_id`,
 * `slack_channel_name`, `slack_team_id` (incidents) and `slack_user_id` (users) are the catalog's `chat_*` fields.
 * The neutral names are added beside the vendor's (which stay, as the upstream sent them), so search and the
 * index find the catalog's fields. https://api-docs.incident.io/tag/Incidents-V2
 */
const NEUTRAL_NAMES: Readonly<Record<string, string>> = {
  slack_channel_id: 'chat_channel_id',
  slack_channel_name: 'chat_channel_name',
  slack_team_id: 'chat_team_id',
  slack_user_id: 'chat_user_id',
};

export function neutralRecord(record: Record<string, unknown>): Record<string, unknown> {
  let out: Record<string, unknown> | null = null;
  for (const [vendor, neutral] of Object.entries(NEUTRAL_NAMES)) {
    if (vendor in record && !(neutral in record)) {
      out ??= { ...record };
      out[neutral] = record[vendor];
    }
  }
  return out ?? record;
}
