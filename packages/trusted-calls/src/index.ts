export { AccessTokens } from './access-tokens.ts';
export { type AuditedCall, type AuditIntent, AuditLog, redactForAudit } from './audit-log.ts';
