export {
  continueTrace,
  currentTraceId,
  currentTraceparent,
  finishedSpan,
  inSpan,
  SpanKind,
  spanAttributes,
} from './spans.ts';
export { startTracing } from './start-tracing.ts';
