// Types of handwritten.mjs for TypeScript callers (the benches): the module itself is plain JavaScript.
import type { DelegateTrace } from "deputy-js/traces";

export declare const FIRST_ID: Record<string, number>;
export declare function renderAlertTsv(text: string, name: string, firstId?: number): DelegateTrace[];
