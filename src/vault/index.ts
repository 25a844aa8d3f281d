export { withGrants } from './credentials.js';
export { FlowRefused } from './links.js';
export { ProviderError } from './provider-client.js';
export { vaultSettings, type VaultSettings } from './settings.js';
export { createVault, type Vault } from './vault.js';
