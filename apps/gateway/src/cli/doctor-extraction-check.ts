import { chooseExtractionModel } from '../composition/choose-extraction-model.ts';
import type { GatewayConfig } from '../config/gateway-config.ts';
import type { DoctorLine } from './doctor-line.ts';

/** Which model memory extraction and summaries run on, and why (`chooseExtractionModel`). */
export function checkExtractionModel(config: GatewayConfig): DoctorLine | undefined {
  const choice = chooseExtractionModel(config.model, config.memory.extractionModel);
  if (!choice) return undefined;
  return { status: 'ok', subject: 'extraction model', message: `${choice.name} (${choice.why})` };
}
