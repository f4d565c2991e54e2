export { createUpgradeAuthorizer, type UpgradeAuthorizer, type UpgradeVerdict } from './authorize-upgrade.ts';
export { isAllowedOrigin } from './is-allowed-origin.ts';
export { type WebMessageToIntentOptions, webIntentId, webMessageToIntent } from './to-intent.ts';
export { createWebSocketChannel, type WebSocketChannel } from './web-socket-channel.ts';
export { WEB_CHANNEL_NAME, type WebSocketChannelOptions } from './web-socket-channel-options.ts';
export type { WebUpload, WebUploads } from './web-uploads.ts';
