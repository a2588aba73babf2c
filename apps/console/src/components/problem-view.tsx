import type { Problem } from '../api.ts';

/** Problem details made readable: what failed, why, and each field to fix with its JSON path. */
export function ProblemView({ problem, onDismiss }: { problem: Problem | null; onDismiss?: () => void }) {
  if (!problem) return null;
  return (
    <div class="problem" role="alert" data-testid="problem">
      <div class="problem-head">
        <strong>
          {problem.status ? `${problem.status} ` : ''}
          {problem.title}
        </strong>
        {problem.code && <code class="problem-code">{problem.code}</code>}
        {onDismiss && (
          <button type="button" class="link" onClick={onDismiss} aria-label="dismiss">
            ×
          </button>
        )}
      </div>
      {problem.detail && <p>{problem.detail}</p>}
      {problem.errors && problem.errors.length > 0 && (
        <ul class="problem-errors">
          {problem.errors.map((e) => (
            <li key={`${e.path}:${e.message}`}>
              <code>{e.path || '/'}</code> {e.message}
            </li>
          ))}
        </ul>
      )}
      {problem.upstream && (
        <details>
          <summary>upstream answered {problem.upstream.status ?? 'nothing'}</summary>
          <pre>{problem.upstream.body ?? ''}</pre>
        </details>
      )}
    </div>
  );
}
