export { createUpgradeAuthorizer, type UpgradeAuthorizer, type UpgradeVerdict } from './authorize-upgrade.ts';
export { type BuildWebIntentOptions, buildWebIntent } from './to-intent.ts';
export { createWebSocketChannel, type WebSocketChannel } from './web-socket-channel.ts';
export type { WebSocketChannelOptions } from './web-socket-channel-options.ts';
