export { compilePolicyPattern, patternProblem, type Pattern } from './pattern.js';
export { toolNameMatcher, unreachableRules, type ToolShape } from './reach.js';
