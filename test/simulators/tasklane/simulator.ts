import { Hono } from 'hono';
import { listen, type RunningServer } from '../kit/server.ts';

/**
 * "Tasklane", an upstream no built-in kind knows, for kinds defined at run time (docs/definitions.md): tasks behind a
 * cursor with their records nested two levels down (`result.items`), people behind RFC 8288 Link headers (a bare
 * array per page), an `updated_since` filter, get and create. Auth: `X-Tasklane-Key`.
 */
export interface Task {
  id: number;
  title: string;
  status: 'open' | 'doing' | 'done';
  estimate: string;
  assignee: { name: string; email: string };
  labels: string[];
  updated_at: string;
}

export interface Person {
  login: string;
  name: string;
  active: boolean;
}

export interface TasklaneSimulator extends RunningServer {
  readonly apiKey: string;
  readonly tasks: Map<number, Task>;
  readonly people: Person[];
  /** Every request the simulator received: method and path with query. */
  readonly requests: string[];
  /** Changes a task upstream now (its updated_at moves). */
  edit(id: number, change: Partial<Omit<Task, 'id'>>): Task;
}

const STATUSES = ['open', 'doing', 'done'] as const;

export async function startTasklane(options: { tasks?: number; people?: number } = {}): Promise<TasklaneSimulator> {
  const apiKey = 'tl-key-7f3a9';
  const tasks = new Map<number, Task>();
  const base = Date.parse('2024-03-01T00:00:00Z');
  for (let i = 1; i <= (options.tasks ?? 230); i++) {
    tasks.set(i, {
      id: i,
      title: `Task ${i}: ${['fix login', 'write docs', 'ship billing', 'triage bugs'][i % 4]}`,
      status: STATUSES[i % 3]!,
      estimate: `${(i * 7) % 40}.${String(i % 100).padStart(2, '0')}`,
      assignee: { name: `Person ${i % 9}`, email: `p${i % 9}@tasklane.example` },
      labels: i % 2 ? ['backend'] : ['frontend', 'ux'],
      updated_at: new Date(base + i * 60_000).toISOString(),
    });
  }
  const people: Person[] = Array.from({ length: options.people ?? 57 }, (_, i) => ({
    login: `user${i + 1}`,
    name: `Person ${i + 1}`,
    active: i % 5 !== 0,
  }));
  const requests: string[] = [];
  const app = new Hono();
  app.use('*', async (c, next) => {
    const url = new URL(c.req.url);
    requests.push(`${c.req.method} ${url.pathname}${url.search}`);
    if (c.req.header('x-tasklane-key') !== apiKey) return c.json({ error: { message: 'bad key' } }, 401);
    return next();
  });

  // Cursor paging, oldest change first; the cursor is the offset, opaque to callers.
  app.get('/v3/tasks', (c) => {
    const since = c.req.query('updated_since');
    const size = Math.min(Number(c.req.query('limit') ?? 50), 100);
    const offset = Number(c.req.query('cursor') ?? 0);
    const all = [...tasks.values()]
      .filter((t) => !since || t.updated_at >= since)
      .sort((a, b) => a.updated_at.localeCompare(b.updated_at) || a.id - b.id);
    const items = all.slice(offset, offset + size);
    const next = offset + size < all.length ? String(offset + size) : null;
    return c.json({ result: { items, total: all.length }, paging: { next } });
  });
  app.get('/v3/tasks/:id', (c) => {
    const task = tasks.get(Number(c.req.param('id')));
    return task ? c.json({ data: task }) : c.json({ error: { message: 'no such task' } }, 404);
  });
  app.post('/v3/tasks', async (c) => {
    const body = (await c.req.json()) as { title?: string };
    if (!body.title) return c.json({ error: { message: 'title is required' } }, 422);
    const id = Math.max(0, ...tasks.keys()) + 1;
    const task: Task = {
      id,
      title: body.title,
      status: 'open',
      estimate: '0.00',
      assignee: { name: 'nobody', email: 'nobody@tasklane.example' },
      labels: [],
      updated_at: new Date().toISOString(),
    };
    tasks.set(id, task);
    return c.json({ data: task }, 201);
  });

  // RFC 8288 Link paging: a bare array per page, rel="next" while there is more.
  app.get('/v3/people', (c) => {
    const page = Number(c.req.query('page') ?? 1);
    const perPage = Math.min(Number(c.req.query('per_page') ?? 20), 50);
    const items = people.slice((page - 1) * perPage, page * perPage);
    const url = new URL(c.req.url);
    if (page * perPage < people.length) {
      url.searchParams.set('page', String(page + 1));
      url.searchParams.set('per_page', String(perPage));
      c.header('link', `<${url.toString()}>; rel="next"`);
    }
    return c.json(items);
  });

  const server = await listen(app);
  return {
    ...server,
    apiKey,
    tasks,
    people,
    requests,
    edit(id, change) {
      const task = { ...tasks.get(id)!, ...change, updated_at: new Date().toISOString() };
      tasks.set(id, task);
      return task;
    },
  };
}
