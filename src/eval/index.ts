/// <reference types="node" preserve="true" />
/**
 * `deputy-js/eval` — measure a delegate backend before trusting it: BFCL-format cases
 * ({@link loadBfclSuite}), scored by BFCL's AST-match rules ({@link bfclAstMatch}) in
 * {@link evaluateBackend} (what `deputy eval` prints).
 *
 * @packageDocumentation
 */
export {
  bfclGroundTruthCall,
  bfclQuestion,
  bfclSchemaToJsonSchema,
  bfclToToolSpec,
  type BfclAnswer,
  type BfclFunction,
  type BfclSample,
} from "./bfcl.js";
export { bfclAstMatch, type AstMatch } from "./bfcl-ast-match.js";
export { bfclCategoryOf, loadBfclSuite, type BfclCategory, type BfclSuiteFile } from "./bfcl-suite.js";
export {
  evaluateBackend,
  type BackendEvaluation,
  type CategoryScore,
  type EvaluateBackendOptions,
} from "./evaluate-backend.js";
