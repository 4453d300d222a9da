import type { Rule } from "eslint";

/** `deputy/no-import-cycle`: no import cycle among the project's files, type-only imports included. */
export declare const noImportCycle: Rule.RuleModule;
