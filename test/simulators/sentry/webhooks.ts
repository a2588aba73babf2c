import { createHmac, randomUUID } from 'node:crypto';
import { announce, EditRotation, randomHex, type SimulatedWebhooks, WebhookSender } from '../kit/webhooks.ts';
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
  const rotation = new EditRotation<SentryIssue>();
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
      const { record: issue } = rotation.next(issues());
      issue.status = issue.status === 'resolved' ? 'unresolved' : 'resolved';
      const change = { entity: 'issues', key: issue.id, field: 'status', value: issue.status };
      return announce(sender, change, issueEvent(issue, issue.status), options);
    },
    async remove(options = {}) {
      // Deleted (or merged away) after the event was sent: the re-read finds no issue.
      const issue = rotation.remove(issues());
      return announce(sender, { entity: 'issues', key: issue.id }, issueEvent(issue, 'resolved'), options);
    },
  };
}
