// Types of require-node.mjs (plain JavaScript so any old Node can load it), for the TypeScript
// that imports it: `nexus doctor` and the tests.
export declare const MINIMUM_NODE_VERSION: string;
export declare const RECOMMENDED_NODE: string;
export declare const EXIT_NODE_TOO_OLD: number;
export declare function compareVersions(a: string, b: string): -1 | 0 | 1;
export declare function nodeVersionProblem(version: string, executable?: string): string | undefined;
export declare function requireSupportedNode(): void;
