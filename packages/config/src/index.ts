export { generateClientSecret, hashClientSecret, verifyClientSecret } from './client-secrets.ts';
export {
  intervalMs,
  isProductionProfile,
  PlatformEnv,
  publicBaseUrl,
  readEnv,
  upstreamOverrides,
} from './config.ts';
export { CredentialsCipher } from './credentials-cipher.ts';
export { localDatabaseUrl } from './local-database.ts';
export { QUOTA_NAMES, type QuotaLimits, type QuotaName, quotaDefaultsOf } from './quota-defaults.ts';
export { signingKeysFrom } from './signing-keys.ts';
