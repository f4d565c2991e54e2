export { createLanguageModel, NOT_CONFIGURED_MESSAGE } from './composition/create-language-model.ts';
export type { GatewayConfig } from './config/gateway-config.ts';
export { ConfigError, type LoadConfigOptions, loadConfig } from './config/load-config.ts';
export { SETTINGS, type SettingDefinition } from './config/settings.ts';
export { type RunningGateway, type StartGatewayOptions, startGateway } from './start-gateway.ts';
