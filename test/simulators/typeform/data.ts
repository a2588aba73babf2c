import { hexId, instantBetween, int, pick, type SeededDataOptions, seededRandom } from '../kit/random.ts';

export type TypeformRecord = Record<string, unknown> & { id: string };
export type TypeformResponse = Record<string, unknown> & { response_id: string; token: string; submitted_at: string };

export interface TypeformData {
  /** Full form definitions (GET /forms/{id}); the list shows a summary of each. */
  forms: TypeformRecord[];
  /** Responses by form id, as Typeform stores them (no form_id inside a response). */
  responses: Map<string, TypeformResponse[]>;
  /** Webhooks by form id (Typeform's webhook objects carry form_id). */
  webhooks: Map<string, TypeformRecord[]>;
  workspaces: TypeformRecord[];
  images: TypeformRecord[];
  themes: TypeformRecord[];
}

export interface TypeformDataOptions extends SeededDataOptions {
  /** Forms; responses and webhooks scale with it. */
  forms?: number;
  /** Responses per form (roughly). */
  responsesPerForm?: number;
  /** Responses of the first form, so that reads span several 1000-response pages. */
  firstFormResponses?: number;
}

const TOPICS = [
  'Customer feedback',
  'NPS survey',
  'Event signup',
  'Job application',
  'Product quiz',
  'Support request',
];
const FONTS = ['Karla', 'Montserrat', 'Lato', 'Roboto'];
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Typeform timestamps: ISO 8601 UTC to the second with a Z (https://www.typeform.com/developers/create/reference/). */
export function typeformTime(ms: number): string {
  return new Date(ms).toISOString().replace('.000Z', 'Z');
}

function alnum(random: () => number, length: number): string {
  let out = '';
  while (out.length < length) out += pick(random, ALNUM.split(''));
  return out;
}

/** Deterministic Typeform-shaped data: the same options give the same records. */
export function generateTypeformData(options: TypeformDataOptions = {}): TypeformData {
  const random = seededRandom(options.seed ?? 7);
  const from = options.from ?? '2023-01-01T00:00:00Z';
  const to = options.to ?? '2025-06-30T00:00:00Z';
  const api = 'https://api.typeform.com';

  const themes: TypeformRecord[] = Array.from({ length: 4 }, (_, i) => {
    const created = instantBetween(random, from, to);
    return {
      id: alnum(random, 8),
      name: `Theme ${i + 1}`,
      visibility: i === 0 ? 'public' : 'private',
      font: pick(random, FONTS),
      rounded_corners: pick(random, ['none', 'small', 'large']),
      has_transparent_button: random() < 0.3,
      created_at: typeformTime(created),
      updated_at: typeformTime(created + int(random, 0, 90) * 86_400_000),
      colors: { question: '#3D3D3D', answer: '#4FB0AE', button: '#4FB0AE', background: '#FFFFFF' },
      background: { brightness: 0, layout: 'fullscreen', href: null },
      fields: { alignment: 'left', font_size: 'medium' },
      screens: { alignment: 'center', font_size: 'small' },
    };
  });
  const workspaces: TypeformRecord[] = Array.from({ length: 3 }, (_, i) => {
    const id = alnum(random, 6);
    return {
      id,
      name: i === 0 ? 'My workspace' : `Team ${i}`,
      default: i === 0,
      shared: i > 0,
      account_id: 'ACCOUNT1',
      forms: { count: 0, href: `${api}/forms?workspace_id=${id}` },
      self: { href: `${api}/workspaces/${id}` },
    };
  });
  const images: TypeformRecord[] = Array.from({ length: 6 }, (_, i) => {
    const id = alnum(random, 12);
    return {
      id,
      file_name: `image-${i + 1}.png`,
      src: `https://images.typeform.com/images/${id}`,
      media_type: pick(random, ['image/png', 'image/jpeg', 'image/gif']),
      avg_color: `#${hexId(random, 6)}`,
      upload_source: pick(random, ['upload', 'unsplash', 'giphy']),
      width: int(random, 100, 2000),
      height: int(random, 100, 2000),
      has_alpha: random() < 0.5,
    };
  });

  const forms: TypeformRecord[] = [];
  const responses = new Map<string, TypeformResponse[]>();
  const webhooks = new Map<string, TypeformRecord[]>();
  for (let i = 0; i < (options.forms ?? 6); i++) {
    const id = alnum(random, 8);
    const drawn = instantBetween(random, from, to);
    // The first form is the oldest, so its responses straddle any start_date in the range.
    const created = i === 0 ? Date.parse(from) : drawn;
    const workspace = pick(random, workspaces);
    (workspace.forms as { count: number }).count++;
    const theme = pick(random, themes);
    const fieldRefs = [`q_${hexId(random, 6)}`, `q_${hexId(random, 6)}`];
    forms.push({
      id,
      type: random() < 0.2 ? 'quiz' : 'form',
      title: `${pick(random, TOPICS)} ${i + 1}`,
      created_at: typeformTime(created),
      last_updated_at: typeformTime(created + int(random, 0, 60) * 86_400_000),
      published_at: typeformTime(created + int(random, 0, 5) * 3_600_000),
      workspace: { href: `${api}/workspaces/${workspace.id}` },
      theme: { href: `${api}/themes/${theme.id}` },
      settings: {
        language: 'en',
        progress_bar: 'proportion',
        show_progress_bar: true,
        is_public: true,
        is_trial: false,
      },
      self: { href: `${api}/forms/${id}` },
      _links: { display: `https://example.typeform.com/to/${id}` },
      welcome_screens: [{ ref: 'welcome', title: 'Welcome!', properties: { show_button: true, button_text: 'Start' } }],
      thankyou_screens: [
        { ref: 'default_tys', title: 'Thanks!', type: 'thankyou_screen', properties: { show_button: false } },
      ],
      logic: [],
      fields: [
        {
          id: hexId(random, 12),
          ref: fieldRefs[0],
          title: 'What is your name?',
          type: 'short_text',
          validations: { required: true },
        },
        {
          id: hexId(random, 12),
          ref: fieldRefs[1],
          title: 'How likely are you to recommend us?',
          type: 'opinion_scale',
          properties: { steps: 11 },
        },
      ],
    });
    const list: TypeformResponse[] = [];
    const typical = Math.max(1, Math.round((options.responsesPerForm ?? 12) * (0.5 + random())));
    const count = i === 0 && options.firstFormResponses !== undefined ? options.firstFormResponses : typical;
    for (let k = 0; k < count; k++) {
      const landed = instantBetween(random, typeformTime(created), to);
      const submitted = landed + int(random, 20, 900) * 1000;
      const token = alnum(random, 32).toLowerCase();
      const score = int(random, 0, 10);
      list.push({
        landing_id: token,
        token,
        response_id: token,
        response_type: 'completed',
        landed_at: typeformTime(landed),
        submitted_at: typeformTime(submitted),
        metadata: {
          user_agent: 'Mozilla/5.0',
          platform: pick(random, ['other', 'mobile']),
          referer: `https://example.typeform.com/to/${id}`,
          network_id: hexId(random, 10),
          browser: 'default',
        },
        hidden: { source: pick(random, ['email', 'ads', 'web']) },
        calculated: { score },
        variables: [{ key: 'score', type: 'number', number: score }],
        answers: [
          {
            field: { id: 'f1', type: 'short_text', ref: fieldRefs[0] },
            type: 'text',
            text: pick(random, ['Ada', 'Grace', 'Linus', 'Margaret']),
          },
          { field: { id: 'f2', type: 'opinion_scale', ref: fieldRefs[1] }, type: 'number', number: score },
        ],
      });
    }
    responses.set(id, list);
    const hooks: TypeformRecord[] = [];
    for (let k = 0; k < int(random, 0, 2); k++) {
      const hookCreated = created + int(random, 0, 30) * 86_400_000;
      hooks.push({
        id: alnum(random, 26).toUpperCase(),
        form_id: id,
        tag: `hook-${k + 1}`,
        url: `https://hooks.example.com/typeform/${id}/${k + 1}`,
        enabled: random() < 0.8,
        verify_ssl: true,
        created_at: typeformTime(hookCreated),
        updated_at: typeformTime(hookCreated + int(random, 0, 10) * 86_400_000),
      });
    }
    webhooks.set(id, hooks);
  }
  return { forms, responses, webhooks, workspaces, images, themes };
}
