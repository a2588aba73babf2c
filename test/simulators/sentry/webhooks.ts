import { createHmac, randomUUID } from 'node:crypto';
import { randomHex, type SimulatedWebhooks, WebhookSender } from '../kit/webhooks.ts';
import type { SentryData, SentryIssue, SentryProject } from './data.ts';

/**
 * Sentry integration-platform webhooks (https://docs.sentry.io/integrations/integration-platform/webhooks/):
 * `Sentry-Hook-Signature: <hex HMAC-SHA256(body)>` with the integration's client secret, `Sentry-Hook-Resource`,
 * `Sentry-Hook-Timestamp` (Unix seconds) and `Request-ID`. Issue events
 * (https://docs.sentry.io/integrations/integration-platform/webhooks/issues/): `{action, installation: {uuid},
 * data: {issue: {...issue, url, web_url, project_url}}, actor}`.
 */
export function sentryWebhookSender(): WebhookSender {
  return new WebhookSender(({ body, secret, at, eventId }) => ({
    'Request-ID': eventId,
    'Sentry-Hook-Resource': 'issue',
    'Sentry-Hook-Timestamp': String(Math.floor(at.getTime() / 1000)),
    'Sentry-Hook-Signature': createHmac('sha256', secret).update(body).digest('hex'),
  }));
}

/** `apiBase`: the simulator's `/api/0` URL (the issue's `url` in events points at it, as Sentry's does). */
export function sentryWebhooks(data: SentryData, apiBase: string): SimulatedWebhooks {
  const sender = sentryWebhookSender();
  const installation = randomUUID();
  const project = data.projects[0] as SentryProject;
  const issues = () => data.issues.get(project.id) ?? [];
  let edits = 0;
  let lastEdited: SentryIssue | undefined;
  const issueEvent = (issue: SentryIssue, action: string) => {
    const eventId = randomUUID();
    const org = project.organization.slug;
    const body = JSON.stringify({
      action,
      installation: { uuid: installation },
      data: {
        issue: {
          ...issue,
          url: `${apiBase}/organizations/${org}/issues/${issue.id}/`,
          web_url: `https://${org}.sentry.io/issues/${issue.id}/`,
          project_url: `https://${org}.sentry.io/issues/?project=${project.id}`,
        },
      },
      actor: { type: 'user', id: 1, name: 'Ada' },
    });
    return { eventId, body };
  };
  return {
    sender,
    newSecret: () => randomHex(20),
    async edit(options = {}) {
      const issue = issues()[edits++ % issues().length]!;
      lastEdited = issue;
      issue.status = issue.status === 'resolved' ? 'unresolved' : 'resolved';
      const event = issueEvent(issue, issue.status);
      const status = options.send === false ? null : await sender.emit(event.body, event.eventId);
      return { entity: 'issues', key: issue.id, field: 'status', value: issue.status, ...event, status };
    },
    async remove(options = {}) {
      // Deleted (or merged away) after the event was sent: the re-read finds no issue.
      const list = issues();
      const issue = list.splice(Math.max(0, list.indexOf(lastEdited!)), 1)[0]!;
      const event = issueEvent(issue, 'resolved');
      const status = options.send === false ? null : await sender.emit(event.body, event.eventId);
      return { entity: 'issues', key: issue.id, ...event, status };
    },
  };
}
