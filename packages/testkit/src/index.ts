// Stand-ins live under subpaths (`@nexus/testkit/llm`, `/telegram`, `/discord`, `/whatsapp`,
// `/qdrant`, `/queue`, `/mcp`, `/channel`, `/media`, `/web-chat`, `/browser`, `/redis`) so a test loads only what it uses.
export { freePort } from './free-port.ts';
export { seededRandom } from './seeded-random.ts';
