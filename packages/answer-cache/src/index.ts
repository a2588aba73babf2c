export { type Answer, AnswerCache, type AnswerMeta } from './answer-cache.ts';
export { ChangeSignals } from './change-signals.ts';
