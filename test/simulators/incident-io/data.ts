import { hexId, instantBetween, int, pick, type SeededDataOptions, seededRandom } from '../kit/random.ts';

export type IncidentIoRecord = Record<string, unknown> & { id: string };

/** Every collection the simulator serves, by the key of its list body. */
export interface IncidentIoData {
  incidents: IncidentIoRecord[];
  alerts: IncidentIoRecord[];
  escalations: IncidentIoRecord[];
  users: IncidentIoRecord[];
  incident_updates: IncidentIoRecord[];
  incident_roles: IncidentIoRecord[];
  incident_statuses: IncidentIoRecord[];
  incident_timestamps: IncidentIoRecord[];
  severities: IncidentIoRecord[];
  custom_fields: IncidentIoRecord[];
  catalog_types: IncidentIoRecord[];
  schedules: IncidentIoRecord[];
}

export interface IncidentIoDataOptions extends SeededDataOptions {
  /** Incidents; alerts, escalations and updates scale with it, users and schedules at a quarter of it. */
  incidents?: number;
}

const ADJECTIVES = ['Elevated', 'Intermittent', 'Partial', 'Complete', 'Degraded', 'Slow'];
const SUBJECTS = ['API errors', 'checkout latency', 'login failures', 'webhook delays', 'database load', 'DNS issues'];
const PEOPLE = ['Ada', 'Grace', 'Linus', 'Margaret', 'Ken', 'Barbara', 'Dennis', 'Radia', 'Edsger', 'Frances'];

function iso(ms: number): string {
  return new Date(ms).toISOString().replace('.000Z', 'Z');
}

/** incident.io ids are ULIDs: 26 upper-case base32 characters. */
function ulid(random: () => number): string {
  return `01${hexId(random, 24).toUpperCase()}`;
}

const stamp = (random: () => number, from: string, to: string) => {
  const created = instantBetween(random, from, to);
  return {
    created_at: iso(created),
    updated_at: iso(Math.min(created + int(random, 0, 20) * 86_400_000, Date.parse(to))),
  };
};

/** Deterministic incident.io-shaped data (https://api-docs.incident.io): the same options give the same records. */
export function generateIncidentIoData(options: IncidentIoDataOptions = {}): IncidentIoData {
  const random = seededRandom(options.seed ?? 7);
  const from = options.from ?? '2023-06-01T00:00:00Z';
  const to = options.to ?? '2025-06-30T00:00:00Z';
  const count = options.incidents ?? 60;
  const at = () => stamp(random, from, to);

  const statuses = ['Investigating', 'Fixing', 'Monitoring', 'Resolved', 'Closed'].map((name, rank) => ({
    id: ulid(random),
    name,
    description: `The incident is ${name.toLowerCase()}`,
    category: rank < 3 ? 'live' : rank === 3 ? 'closed' : 'closed',
    rank,
    ...at(),
  }));
  const severities = ['Critical', 'Major', 'Minor', 'Trivial'].map((name, i) => ({
    id: ulid(random),
    name,
    description: `${name} impact on customers`,
    rank: 4 - i,
    ...at(),
  }));
  const roles = ['Incident Lead', 'Communications', 'Scribe', 'Ops'].map((name, i) => ({
    id: ulid(random),
    name,
    description: `${name} of the incident`,
    instructions: `Take care of ${name.toLowerCase()}`,
    shortform: name.toLowerCase().replaceAll(' ', '-'),
    role_type: i === 0 ? 'lead' : 'custom',
    required: i === 0,
    ...at(),
  }));
  const timestamps = ['Reported at', 'Accepted at', 'Impact started', 'Fixed at', 'Resolved at'].map((name, rank) => ({
    id: ulid(random),
    name,
    rank,
  }));
  const catalogTypes = ['Service', 'Team', 'Customer'].map((name) => ({
    id: ulid(random),
    name,
    description: `Catalog of every ${name.toLowerCase()}`,
    type_name: `Custom["${name}"]`,
    color: pick(random, ['blue', 'green', 'violet']),
    icon: pick(random, ['box', 'users', 'star']),
    ranked: false,
    is_editable: true,
    registry_type: null,
    semantic_type: '',
    annotations: {},
    categories: ['service'],
    required_integrations: [],
    schema: { version: 1, attributes: [{ id: ulid(random), name: 'Owner', type: 'String', array: false }] },
    last_synced_at: null,
    ...at(),
  }));
  const customFields = ['Affected teams', 'Root cause', 'Customer impact', 'Service'].map((name, i) => ({
    id: ulid(random),
    name,
    description: `${name} of the incident`,
    field_type: pick(random, ['single_select', 'multi_select', 'text']),
    catalog_type_id: i === 3 ? catalogTypes[0]!.id : null,
    ...at(),
  }));
  const users = Array.from({ length: Math.max(4, Math.ceil(count / 4)) }, (_, i) => {
    const name = `${PEOPLE[i % PEOPLE.length]} ${i}`;
    return {
      id: ulid(random),
      name,
      email: `${name.toLowerCase().replace(' ', '.')}@example.com`,
      role: pick(random, ['viewer', 'responder', 'administrator']),
      slack_user_id: `U${hexId(random, 8).toUpperCase()}`,
      base_role: { id: ulid(random), name: 'Responder', slug: 'responder', description: 'Can respond' },
      custom_roles: [],
    };
  });
  const userRef = (u: IncidentIoRecord) => ({ id: u.id, name: u.name, email: u.email, role: u.role });
  const schedules = Array.from({ length: Math.max(3, Math.ceil(count / 4)) }, (_, i) => ({
    id: ulid(random),
    name: `On-call rotation ${i + 1}`,
    timezone: pick(random, ['Europe/London', 'America/New_York', 'UTC']),
    annotations: {},
    config: { rotations: [{ id: ulid(random), name: 'Primary', users: [userRef(pick(random, users))] }] },
    team_ids: [],
    holidays_public_config: null,
    current_shifts: [],
    ...at(),
  }));

  const incidents: IncidentIoRecord[] = [];
  const updates: IncidentIoRecord[] = [];
  const alerts: IncidentIoRecord[] = [];
  const escalations: IncidentIoRecord[] = [];
  for (let i = 0; i < count; i++) {
    const times = at();
    const status = pick(random, statuses);
    const severity = pick(random, severities);
    const creator = pick(random, users);
    const id = ulid(random);
    const channel = `inc-${i + 1}-${pick(random, SUBJECTS).replaceAll(' ', '-')}`;
    incidents.push({
      id,
      reference: `INC-${i + 1}`,
      name: `${pick(random, ADJECTIVES)} ${pick(random, SUBJECTS)}`,
      summary: random() < 0.7 ? 'Customers saw errors while we rolled back a deploy' : null,
      mode: pick(random, ['standard', 'standard', 'standard', 'retrospective', 'test', 'tutorial']),
      visibility: random() < 0.85 ? 'public' : 'private',
      permalink: `https://app.incident.io/example/incidents/${i + 1}`,
      call_url: random() < 0.5 ? `https://meet.example.com/inc-${i + 1}` : null,
      slack_channel_id: `C${hexId(random, 8).toUpperCase()}`,
      slack_channel_name: channel,
      slack_team_id: 'T0EXAMPLE',
      has_debrief: random() < 0.3,
      creator: { user: userRef(creator) },
      incident_status: status,
      severity,
      incident_type: { id: ulid(random), name: 'Default', description: 'Default incident type', is_default: true },
      incident_role_assignments: [{ role: roles[0], assignee: userRef(pick(random, users)) }],
      custom_field_entries: [],
      duration_metrics: [
        { duration_metric: { id: ulid(random), name: 'Time to fix' }, value_seconds: int(random, 60, 86_400) },
      ],
      incident_timestamp_values: [{ incident_timestamp: timestamps[0], value: { value: times.created_at } }],
      workload_minutes_late: int(random, 0, 60),
      workload_minutes_sleeping: int(random, 0, 30),
      workload_minutes_total: int(random, 30, 600),
      workload_minutes_working: int(random, 30, 500),
      ...times,
    });
    for (let k = 0; k < int(random, 0, 2); k++) {
      updates.push({
        id: ulid(random),
        incident_id: id,
        message: `Update ${k + 1}: ${pick(random, ['rolled back', 'monitoring', 'fix deployed'])}`,
        new_incident_status: pick(random, statuses),
        new_severity: severity,
        updater: { user: userRef(pick(random, users)) },
        created_at: times.updated_at,
      });
    }
    const alertTimes = at();
    const resolved = random() < 0.6;
    alerts.push({
      id: ulid(random),
      title: `${pick(random, SUBJECTS)} above threshold`,
      description: 'Error rate above 5% for 5 minutes',
      status: resolved ? 'resolved' : 'firing',
      alert_source_id: ulid(random),
      deduplication_key: `dedup-${i}`,
      source_url: `https://monitoring.example.com/alerts/${i}`,
      attributes: [{ attribute: { id: ulid(random), name: 'Service' }, value: { literal: 'api' } }],
      resolved_at: resolved ? alertTimes.updated_at : null,
      ...alertTimes,
    });
    escalations.push({
      id: ulid(random),
      title: `Escalation for INC-${i + 1}`,
      status: pick(random, ['pending', 'triggered', 'acked', 'resolved', 'expired', 'cancelled']),
      escalation_path_id: ulid(random),
      creator: { user: userRef(creator) },
      priority: { name: pick(random, ['P1', 'P2', 'P3']) },
      events: [{ event: 'created', occurred_at: times.created_at }],
      related_incidents: [{ id, reference: `INC-${i + 1}` }],
      related_alerts: [],
      ...at(),
    });
  }
  return {
    incidents,
    alerts,
    escalations,
    users,
    incident_updates: updates,
    incident_roles: roles,
    incident_statuses: statuses,
    incident_timestamps: timestamps,
    severities,
    custom_fields: customFields,
    catalog_types: catalogTypes,
    schedules,
  };
}
