export type { ToolClassification } from './classification.js';
export { RANK, stricter, strictest, type Decision } from './decision.js';
export { compilePolicyPattern, patternProblem } from './pattern.js';
export { createPolicy, type Policy, type PolicyRuleSpec } from './policy.js';
export { toolAllowance, toolNameMatcher, unreachableRules, type ToolShape } from './reach.js';
export { allowedByAll, toolsetPatterns, toolsetProblems, type ToolsetsConfig } from './toolsets.js';
export { localReachProblems, upstreamReachProblems, type ReachInput } from './start-checks.js';
export { createPathRules, type PathRules } from './paths.js';
export { matchesEveryExtension, pathShape, type PathShape } from './path-shape.js';
