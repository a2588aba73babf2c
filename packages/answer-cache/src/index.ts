export { type Answer, AnswerCache, type AnswerMeta, type AnswerScope, type Question } from './answer-cache.ts';
export { ChangeSignals } from './change-signals.ts';
