// Test helpers for packages that run the real core in their tests; not part of the runtime API.
export { type ScriptedCore, startScriptedCore } from './scripted-core.ts';
