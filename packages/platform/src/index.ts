export { type CoreServices, connectPlatformServices, type PlatformServices } from './platform-services.ts';
