/// <reference types="node" preserve="true" />
/**
 * `deputy-js/eval` — measure a delegate backend before trusting it: BFCL-format cases
 * ({@link loadBfclSuite}), scored by BFCL's AST-match rules ({@link bfclAstMatch}) in
 * {@link evaluateBackend} (what `deputy eval` prints); and a team's own decisions (traces, chat examples:
 * {@link readDecisionSuite}) run through a chain of levels as the cascade does ({@link evaluateChain}), each call
 * scored exactly or by a free-text rule ({@link decisionMatch}).
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
export { decisionMatch, freeTextMatches, type DecisionCall, type FreeTextRule } from "./decision-match.js";
export {
  readDecisionSuite,
  suiteFormat,
  type DecisionCase,
  type DecisionSuite,
  type ReadDecisionSuiteOptions,
} from "./decision-suite.js";
export {
  evaluateChain,
  type ChainAnswer,
  type ChainLevel,
  type ChainScore,
  type EvaluateChainOptions,
  type LevelScore,
} from "./evaluate-chain.js";
export { fitChainTrust, trustRowsOf } from "./chain-trust.js";
export {
  learnNode,
  type Champion,
  type CurvePoint,
  type LearnNodeOptions,
  type LearnResult,
  type MeasuredModel,
} from "./learn/learn-node.js";
export { promotionVerdict, type HeldOutStanding, type PromotionVerdict } from "./learn/promotion-rule.js";
export { decisionHash, splitDecisions, type DecisionSplit } from "./learn/decision-split.js";
export {
  applyLearnResult,
  championTrainedOn,
  nodeFiles,
  readLearnHistory,
  type LearnHistoryEntry,
  type NodeFiles,
} from "./learn/node-files.js";
