export { schemaEdgeCases } from './schema-edge-cases.ts';
