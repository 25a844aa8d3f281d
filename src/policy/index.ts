export { compilePolicyPattern, patternProblem } from './pattern.js';
export { toolAllowance, toolNameMatcher, unreachableRules, type ToolShape } from './reach.js';
export { allowedByAll, toolsetPatterns, toolsetProblems, type ToolsetsConfig } from './toolsets.js';
