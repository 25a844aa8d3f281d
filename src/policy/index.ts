export { compilePolicyPattern, patternProblem } from './pattern.js';
export { toolNameMatcher, unreachableRules, type ToolShape } from './reach.js';
