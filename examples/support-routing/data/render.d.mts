// Types of render.mjs for TypeScript callers (the tests): the module itself is plain JavaScript.
import type { DelegateTrace } from "deputy-js/traces";

export declare const CANDIDATES: string[];
export declare function renderTsv(text: string, runId: string): DelegateTrace[];
