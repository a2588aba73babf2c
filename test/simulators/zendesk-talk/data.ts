import { hexId, instantBetween, int, pick, type SeededDataOptions, seededRandom } from '../kit/random.ts';

export type ZendeskRecord = Record<string, unknown> & { id: number | string };
export type ZendeskExportRecord = Record<string, unknown> & { id: number; updated_at: string };

export interface ZendeskTalkData {
  phone_numbers: ZendeskRecord[];
  addresses: ZendeskRecord[];
  greetings: ZendeskRecord[];
  greeting_categories: ZendeskRecord[];
  ivrs: ZendeskRecord[];
  agents_activity: (Record<string, unknown> & { agent_id: number })[];
  agents_overview: Record<string, number>;
  account_overview: Record<string, number>;
  current_queue_activity: Record<string, number>;
  calls: ZendeskExportRecord[];
  legs: ZendeskExportRecord[];
}

export interface ZendeskTalkDataOptions extends SeededDataOptions {
  /** Phone numbers; the other settings lists and the calls scale with it. */
  size?: number;
  /** Calls in the incremental export (default size × 10); each has one to three legs. */
  calls?: number;
}

const CITIES = ['Paris', 'Berlin', 'Austin', 'Lisbon', 'Tokyo', 'Sydney'];
const COUNTRIES = ['FR', 'DE', 'US', 'PT', 'JP', 'AU'];
const NAMES = ['Ada', 'Grace', 'Linus', 'Margaret', 'Alan', 'Barbara', 'Dennis', 'Ken'];

function iso(ms: number): string {
  return new Date(ms).toISOString().replace('.000Z', 'Z');
}

function number(random: () => number): string {
  return `+1${int(random, 200, 999)}${int(random, 1000000, 9999999)}`;
}

/** Counters of a stats object: every name gets a small integer. */
function counters(random: () => number, names: readonly string[]): Record<string, number> {
  return Object.fromEntries(names.map((n) => [n, int(random, 0, 500)]));
}

/** Deterministic Zendesk Talk data (https://developer.zendesk.com/api-reference/voice/talk-api/). */
export function generateZendeskTalkData(options: ZendeskTalkDataOptions = {}): ZendeskTalkData {
  const random = seededRandom(options.seed ?? 7);
  const size = options.size ?? 30;
  const from = options.from ?? '2023-01-01T00:00:00Z';
  const to = options.to ?? '2025-06-30T00:00:00Z';

  const greeting_categories: ZendeskRecord[] = ['voicemail', 'available', 'wait', 'hold', 'ivr'].map((name, i) => ({
    id: i + 1,
    name,
  }));
  const addresses: ZendeskRecord[] = Array.from({ length: Math.max(2, Math.ceil(size / 2)) }, (_, i) => {
    const c = int(random, 0, CITIES.length - 1);
    return {
      id: 1000 + i,
      city: CITIES[c],
      country_code: COUNTRIES[c],
      name: `Office ${i + 1}`,
      provider_reference: `AD${hexId(random, 24)}`,
      province: random() < 0.5 ? 'North' : null,
      state: random() < 0.3 ? 'TX' : null,
      street: `${int(random, 1, 200)} Main Street`,
      zip: String(int(random, 10000, 99999)),
    };
  });
  const phone_numbers: ZendeskRecord[] = Array.from({ length: size }, (_, i) => {
    const digital = random() < 0.2;
    const num = number(random);
    return {
      id: 5000 + i,
      brand_id: int(random, 1, 3),
      default_group_id: int(random, 100, 105),
      ivr_id: random() < 0.3 ? 9000 : null,
      priority: int(random, 0, 2),
      schedule_id: random() < 0.5 ? int(random, 1, 4) : null,
      sms_group_id: null,
      call_recording_consent: pick(random, ['always', 'opt_in', 'opt_out', 'never']),
      country_code: pick(random, COUNTRIES),
      created_at: iso(instantBetween(random, from, to)),
      display_number: digital ? null : num,
      failover_number: null,
      line_type: digital ? 'digital' : 'phone',
      location: pick(random, ['CA', 'NY', 'TX', null]),
      name: `Line ${i + 1}`,
      nickname: random() < 0.5 ? `Support ${i + 1}` : null,
      number: digital ? null : num,
      token: hexId(random, 32),
      external: false,
      outbound_enabled: random() < 0.8,
      recorded: random() < 0.5,
      sms_enabled: random() < 0.3,
      toll_free: random() < 0.2,
      transcription: random() < 0.4,
      voice_enabled: true,
      capabilities: { sms: random() < 0.5, mms: false, voice: true },
      categorised_greetings: { 1: 'voicemail_en', 2: 'available_en' },
      categorised_greetings_with_sub_settings: { 1: { voicemail_on: 'voicemail_en' } },
      default_greeting_ids: ['voicemail_en', 'available_en'],
      greeting_ids: [int(random, 1, 40)],
      group_ids: [int(random, 100, 105)],
    };
  });
  const greetings: ZendeskRecord[] = [
    ...['voicemail_en', 'available_en', 'wait_en'].map((id, i) => ({
      id,
      name: id,
      category_id: i + 1,
      default: true,
    })),
    ...Array.from({ length: Math.max(2, Math.ceil(size / 3)) }, (_, i) => ({
      id: String(i + 1),
      name: `Greeting ${i + 1}`,
      category_id: int(random, 1, 5),
      default: false,
    })),
  ].map((g) => ({
    ...g,
    active: random() < 0.8,
    default_lang: g.default,
    has_sub_settings: false,
    pending: false,
    audio_name: `${g.name}.mp3`,
    audio_url: `/system/voice/uploads/${hexId(random, 8)}/${g.name}.mp3`,
    upload_id: int(random, 1, 10000),
    ivr_ids: [],
    phone_number_ids: [phone_numbers[int(random, 0, phone_numbers.length - 1)]!.id],
  }));
  const ivrs: ZendeskRecord[] = Array.from({ length: 3 }, (_, i) => ({
    id: 9000 + i,
    name: `IVR ${i + 1}`,
    phone_number_ids: [phone_numbers[i % phone_numbers.length]!.id],
    phone_number_names: [String(phone_numbers[i % phone_numbers.length]!.name)],
    menus: [{ id: 100 + i, name: 'Main', default: true, greeting_id: 1, routes: [{ id: 1, keypress: '1' }] }],
  }));
  const agents_activity = Array.from({ length: Math.max(3, Math.ceil(size / 2)) }, (_, i) => ({
    agent_id: 300 + i,
    name: `${pick(random, NAMES)} ${i}`,
    avatar_url: null,
    agent_state: pick(random, ['online', 'offline', 'away', 'transfers_only']),
    call_status: pick(random, ['on_call', 'wrap_up', null]),
    forwarding_number: null,
    via: pick(random, ['client', 'phone']),
    ...counters(random, [
      'available_time',
      'away_time',
      'calls_accepted',
      'calls_denied',
      'calls_missed',
      'online_time',
      'total_call_duration',
      'total_talk_time',
      'total_wrap_up_time',
      'transfers_only_time',
      'accepted_third_party_conferences',
      'accepted_transfers',
      'average_hold_time',
      'average_talk_time',
      'average_wrap_up_time',
      'calls_put_on_hold',
      'started_third_party_conferences',
      'started_transfers',
      'total_hold_time',
    ]),
  }));
  const agents_overview = counters(random, [
    'average_calls_accepted',
    'average_calls_denied',
    'average_calls_missed',
    'average_wrap_up_time',
    'total_calls_accepted',
    'total_calls_denied',
    'total_calls_missed',
    'total_talk_time',
    'total_wrap_up_time',
    'average_accepted_transfers',
    'average_available_time',
    'average_away_time',
    'average_calls_put_on_hold',
    'average_hold_time',
    'average_online_time',
    'average_started_transfers',
    'average_talk_time',
    'average_transfers_only_time',
    'total_accepted_transfers',
    'total_calls_put_on_hold',
    'total_hold_time',
    'total_started_transfers',
  ]);
  const account_overview = counters(random, [
    'average_call_duration',
    'average_callback_wait_time',
    'average_hold_time',
    'average_queue_wait_time',
    'average_time_to_answer',
    'average_wrap_up_time',
    'max_calls_waiting',
    'max_queue_wait_time',
    'total_call_duration',
    'total_callback_calls',
    'total_calls',
    'total_calls_abandoned_in_queue',
    'total_calls_outside_business_hours',
    'total_calls_with_exceeded_queue_wait_time',
    'total_calls_with_requested_voicemail',
    'total_embeddable_callback_calls',
    'total_hold_time',
    'total_inbound_calls',
    'total_outbound_calls',
    'total_textback_requests',
    'total_voicemails',
    'total_wrap_up_time',
  ]);
  const current_queue_activity = counters(random, [
    'agents_online',
    'average_wait_time',
    'callbacks_waiting',
    'calls_waiting',
    'embeddable_callbacks_waiting',
    'longest_wait_time',
  ]);

  const calls: ZendeskExportRecord[] = [];
  const legs: ZendeskExportRecord[] = [];
  let updated = 0;
  for (let i = 0; i < (options.calls ?? size * 10); i++) {
    const created = instantBetween(random, from, to);
    // Every fifth call is updated in the same second as the previous one: the export's boundary repeats.
    updated = i % 5 === 4 && updated > 0 ? updated : created + int(random, 0, 3600) * 1000;
    const duration = int(random, 5, 1800);
    const agent = agents_activity[int(random, 0, agents_activity.length - 1)]!.agent_id;
    const call: ZendeskExportRecord = {
      id: 700000 + i,
      agent_id: agent,
      call_charge: (duration * 0.0035).toFixed(3),
      call_group_id: int(random, 100, 105),
      call_recording_consent: 'always',
      call_recording_consent_action: null,
      call_recording_consent_keypress: null,
      callback: random() < 0.1,
      callback_source: null,
      completion_status: pick(random, ['completed', 'abandoned_in_queue', 'voicemail', 'missed']),
      consultation_time: 0,
      created_at: iso(created),
      customer_requested_voicemail: random() < 0.1,
      default_group: true,
      direction: pick(random, ['inbound', 'outbound']),
      duration,
      exceeded_queue_time: false,
      hold_time: int(random, 0, 60),
      ivr_action: null,
      ivr_destination_group_name: null,
      ivr_hops: null,
      ivr_routed_to: null,
      ivr_time_spent: null,
      minutes_billed: Math.ceil(duration / 60),
      not_recording_time: 0,
      outside_business_hours: random() < 0.1,
      overflowed: false,
      overflowed_to: null,
      phone_number: number(random),
      phone_number_id: phone_numbers[int(random, 0, phone_numbers.length - 1)]!.id as number,
      quality_issues: [],
      recording_control_interactions: 0,
      recording_time: duration,
      talk_time: Math.max(0, duration - 20),
      ticket_id: int(random, 1, 99999),
      time_to_answer: int(random, 1, 40),
      updated_at: iso(updated),
      voicemail: false,
      wait_time: int(random, 0, 120),
      wrap_up_time: int(random, 0, 90),
    };
    calls.push(call);
    for (let k = 0; k < int(random, 1, 3); k++) {
      legs.push({
        id: 800000 + legs.length,
        agent_id: k === 0 ? agent : null,
        available_via: pick(random, ['client', 'phone']),
        call_charge: '0.010',
        call_id: call.id,
        completion_status: 'completed',
        conference_from: null,
        conference_time: null,
        conference_to: null,
        consultation_from: null,
        consultation_time: null,
        consultation_to: null,
        created_at: call.created_at,
        duration: int(random, 5, duration),
        forwarded_to: null,
        hold_time: 0,
        minutes_billed: 1,
        quality_issues: [],
        talk_time: int(random, 0, duration),
        transferred_from: null,
        transferred_to: null,
        type: k === 0 ? 'customer' : 'agent',
        updated_at: iso(updated + k * 1000),
        user_id: k === 0 ? null : agent,
        wrap_up_time: 0,
      });
    }
  }
  return {
    phone_numbers,
    addresses,
    greetings,
    greeting_categories,
    ivrs,
    agents_activity,
    agents_overview,
    account_overview,
    current_queue_activity,
    calls,
    legs,
  };
}
