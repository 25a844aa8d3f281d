import type { Tool } from '../../tool.js';

// Placeholder so the Bash tool compiles on its own branch: the classifier (issue 16, classification) replaces this file.
export function bashPermissionHooks(): Pick<Tool, 'classify' | 'canonicalArgs'> { return { classify: () => 'ask' }; }
