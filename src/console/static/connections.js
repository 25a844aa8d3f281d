// The Connections section (docs/console.md): the people of the key's tenant and the providers they authorized, never a
// token. Shown only where the gateway has oauth_providers: GET /admin/connections answers 404 otherwise, and this stops
// asking. The key is console.js's, read from this tab's sessionStorage; everything is shown as text.

const KEY = 'toolgate-console-key';
const POLL_MS = 2000;
const $ = (id) => document.getElementById(id);
const time = (iso) => `${iso.slice(0, 19).replace('T', ' ')} UTC`;

function render(connections) {
  $('connections-section').hidden = false;
  const items = connections.map((c) => {
    const item = document.createElement('li');
    const scopes = c.scopes.length > 0 ? ` (${c.scopes.join(' ')})` : '';
    const expires = c.expires_at ? `, token refreshed before ${time(c.expires_at)}` : '';
    item.textContent = `${c.user} — ${c.provider}${scopes}: connected ${time(c.connected_at)}${expires}`;
    return item;
  });
  $('connections').replaceChildren(...items);
  $('connections-empty').hidden = items.length > 0;
}

async function poll() {
  const key = sessionStorage.getItem(KEY);
  if (key !== null && !$('console').hidden) {
    const headers = { accept: 'application/json', authorization: `Bearer ${key}` };
    const response = await fetch('admin/connections', { headers, credentials: 'omit', cache: 'no-store' }).catch(() => undefined);
    if (response?.status === 404) return;
    if (response?.ok) render((await response.json()).connections);
  }
  setTimeout(poll, POLL_MS);
}

void poll();
