// Types of curve.mjs for TypeScript callers (bench/flywheel-sealed.ts): the module itself is plain JavaScript.
export declare const NODE: string;
export declare const RULE: { names: string[] };
export declare const VARIANTS: (encoder: string | undefined) => [kind: string, extra: string[]][];
export declare function trainOnFirst(
  lines: readonly string[],
  n: number,
  kind: string,
  extra: readonly string[],
  options: { dir: string; target?: string },
): string | undefined;
