export { createLanguageModel, NOT_CONFIGURED_MESSAGE } from './create-language-model.ts';
export type { GatewayConfig } from './gateway-config.ts';
export { ConfigError, type LoadConfigOptions, loadConfig } from './load-config.ts';
export { SETTINGS, type SettingDefinition } from './settings.ts';
export { type RunningGateway, type StartGatewayOptions, startGateway } from './start-gateway.ts';
