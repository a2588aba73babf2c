export { connectPlatformServices, type PlatformServices } from './platform-services.ts';
