export { KEY_MAX_AGE_MS, KEY_REFETCH_INTERVAL_MS, KEY_STALE_MS } from './key-set.js';
export { TokenRejected } from './reasons.js';
export { metadataUrls } from './discovery.js';
export { createTokenVerifier, type TokenVerifier, type VerifiedToken } from './verifier.js';
