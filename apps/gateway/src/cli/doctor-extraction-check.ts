import { chooseExtractionModel } from '../composition/choose-extraction-model.ts';
import type { GatewayConfig } from '../config/gateway-config.ts';
import type { DoctorLine } from './doctor-line.ts';
import { modelsRequest } from './doctor-remote-checks.ts';

const TIMEOUT_MS = 5000;

/**
 * Which model memory extraction and summaries run on, and why (`chooseExtractionModel`). A
 * cheaper sibling chosen by default is looked up in the provider's model list: one it does not
 * list means extraction falls back to the chat model, and the line says so with the fix. When the
 * list cannot be read, the choice is shown as it stands (the model check reports the provider).
 */
export async function checkExtractionModel(
  config: GatewayConfig,
  fetchFunction: typeof fetch,
): Promise<DoctorLine | undefined> {
  const choice = chooseExtractionModel(config.model, config.memory.extractionModel);
  if (!choice) return undefined;
  const chosen: DoctorLine = {
    status: 'ok',
    subject: 'extraction model',
    message: `${choice.name} (${choice.why})`,
  };
  if (!choice.fallback) return chosen;
  const ids = await listedModels(config, fetchFunction);
  if (!ids || ids.length === 0 || ids.includes(choice.name)) return chosen;
  return {
    status: 'warn',
    subject: 'extraction model',
    message: `${choice.fallback} (the provider does not list ${choice.name}, the cheaper sibling of ${choice.fallback}, so extraction falls back to the chat model)`,
    fix:
      config.model.provider === 'openai-compatible'
        ? `pull it (e.g. \`ollama pull ${choice.name}\`) for cheaper extraction, or set NEXUS_EXTRACTION_MODEL to a model it lists`
        : 'set NEXUS_EXTRACTION_MODEL to a model id your account can use',
  };
}

async function listedModels(
  config: GatewayConfig,
  fetchFunction: typeof fetch,
): Promise<string[] | undefined> {
  const { url, headers } = modelsRequest(config.model);
  try {
    const response = await fetchFunction(url, { headers, signal: AbortSignal.timeout(TIMEOUT_MS) });
    if (!response.ok) {
      await response.body?.cancel();
      return undefined;
    }
    const body = (await response.json()) as { data?: { id?: unknown }[] };
    return (body.data ?? []).flatMap((model) => (typeof model.id === 'string' ? [model.id] : []));
  } catch {
    return undefined;
  }
}
