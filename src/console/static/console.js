// The operators' console (docs/console.md): a client of the gateway's own admin API, on the gateway's origin.
// The key lives in this tab's sessionStorage and travels in the Authorization header only. Everything the API
// returns is shown as text (textContent), never parsed as HTML.

const KEY = 'toolgate-console-key';
/** Pending requests appear and leave within 2 s: one poll a second, the next only once the last has answered. */
const POLL_MS = 1000;
const $ = (id) => document.getElementById(id);

let key = sessionStorage.getItem(KEY);
let timer;
/** Pending requests on the page, by id. */
const shown = new Map();

class ApiError extends Error {
  constructor(status, body) {
    super(body?.error?.message ?? `HTTP ${status}`);
    this.status = status;
    this.body = body;
  }
}

async function api(path, options = {}) {
  const headers = { accept: 'application/json', ...(options.body ? { 'content-type': 'application/json' } : {}) };
  if (key) headers.authorization = `Bearer ${key}`;
  const response = await fetch(path, { ...options, headers, credentials: 'omit', cache: 'no-store' });
  const body = await response.json().catch(() => undefined);
  if (!response.ok) throw new ApiError(response.status, body);
  return body;
}

function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (name === 'text') node.textContent = value;
    else if (name === 'class') node.className = value;
    else node.setAttribute(name, value);
  }
  for (const child of children) if (child != null) node.append(child);
  return node;
}

const when = (ms) => (ms == null ? '' : `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')} UTC`);
const say = (text) => ($('status').textContent = text);

/** The refusal a person can act on: a wrong key, or a key without the admin scope. */
function refusal(err) {
  if (err.status === 401) return 'This API key is not valid.';
  if (err.status === 403) return 'This API key is not an admin key: the console needs a key with the admin scope.';
  if (err.status === 429) return 'Too many failed sign-ins from this address; wait a minute.';
  return `The gateway answered: ${err.message}`;
}

async function signIn(event) {
  event.preventDefault();
  const input = $('key');
  key = input.value.trim() || null;
  $('sign-in-error').textContent = '';
  try {
    await api('approvals?limit=1');
  } catch (err) {
    key = null;
    $('sign-in-error').textContent = err instanceof ApiError ? refusal(err) : 'The gateway cannot be reached.';
    input.focus();
    return;
  }
  input.value = '';
  if (key) sessionStorage.setItem(KEY, key);
  start();
}

function signOut(message = '') {
  clearTimeout(timer);
  key = null;
  sessionStorage.removeItem(KEY);
  shown.clear();
  $('pending').replaceChildren();
  $('console').hidden = true;
  $('sign-out').hidden = true;
  $('who').hidden = true;
  $('sign-in').hidden = false;
  $('sign-in-error').textContent = message;
  $('key').focus();
}

function start() {
  $('sign-in').hidden = true;
  $('console').hidden = false;
  $('sign-out').hidden = false;
  $('who').hidden = false;
  $('who').textContent = key ? 'Signed in with an admin key' : 'No keys configured: the local caller';
  $('pending-title').focus();
  void poll();
}

/** A unified diff, one element per line: added lines in <ins>, removed in <del>, so each is marked for every reader. */
function diffView(diff) {
  const pre = el('pre', { class: 'diff', tabindex: '0', 'aria-label': 'Unified diff' });
  for (const line of diff.split('\n').slice(0, diff.endsWith('\n') ? -1 : undefined)) {
    const added = line.startsWith('+') && !line.startsWith('+++ ');
    const removed = line.startsWith('-') && !line.startsWith('--- ');
    if (added) pre.append(el('span', { class: 'add' }, el('ins', { text: line })));
    else if (removed) pre.append(el('span', { class: 'del' }, el('del', { text: line })));
    else pre.append(el('span', { class: line.startsWith('@@') ? 'hunk' : /^(---|\+\+\+|\\)/.test(line) ? 'meta' : 'ctx', text: line }));
  }
  return pre;
}

function previewView(preview) {
  if (preview.kind === 'diff') {
    const region = el(
      'section',
      { class: 'preview', 'aria-label': 'Proposed change' },
      el('h4', { text: `Proposed change to ${preview.path}${preview.new_file ? ' (new file)' : ''}` }),
    );
    const stale = el('p', {
      class: 'note stale',
      text: 'The file has changed since this diff was made: the call, if approved, edits the file as it is then (an Edit whose file changed after the agent read it fails with CONFLICT).',
    });
    stale.hidden = !preview.file_changed;
    region.append(stale);
    if (preview.note) region.append(el('p', { class: 'note', text: preview.note }));
    if (preview.diff) region.append(diffView(preview.diff));
    return region;
  }
  if (preview.kind === 'command') {
    const reasons = el('ul', {}, ...preview.reasons.map((reason) => el('li', { text: reason })));
    return el(
      'section',
      { class: 'preview', 'aria-label': 'Proposed command' },
      el('h4', { text: 'Command' }),
      el('pre', { tabindex: '0', text: preview.command }),
      el('p', { text: `Class: ${preview.class} · sandbox: ${preview.sandbox === 'bwrap' ? 'bubblewrap' : 'none'}` }),
      reasons,
    );
  }
  return null;
}

function requestView(approval) {
  const title = `title-${approval.id}`;
  const reasonId = `reason-${approval.id}`;
  const path = approval.preview.kind === 'diff' ? el('span', { class: 'path', text: approval.preview.path }) : null;
  const outcome = el('p', { class: 'error', role: 'alert' });
  const reason = el('input', { id: reasonId, type: 'text', maxlength: '1000', autocomplete: 'off' });
  const approve = el('button', { type: 'button', class: 'approve', text: 'Approve' });
  const deny = el('button', { type: 'button', class: 'deny', text: 'Deny' });
  const article = el(
    'article',
    { 'aria-labelledby': title },
    // The space is text, not only margin: the article's accessible name is the heading's text run together ("Write ask/x.txt").
    el('h3', { id: title }, approval.tool, path && ' ', path),
    el(
      'dl',
      { class: 'meta' },
      el('dt', { text: 'Session' }),
      el('dd', { text: approval.session_id }),
      ...(approval.user === undefined ? [] : [el('dt', { text: 'User' }), el('dd', { class: 'user', text: approval.user })]),
      el('dt', { text: 'Requested' }),
      el('dd', { text: when(approval.created_at) }),
      el('dt', { text: 'Expires' }),
      el('dd', { text: when(approval.expires_at) }),
      el('dt', { text: 'Request' }),
      el('dd', { class: 'request-id' }, el('code', { text: approval.id })),
    ),
    el(
      'details',
      { open: '' },
      el('summary', { text: 'Arguments' }),
      el('pre', { tabindex: '0', text: JSON.stringify(approval.arguments, null, 2) }),
    ),
    previewView(approval.preview),
    el(
      'form',
      { class: 'decide' },
      el('label', { for: reasonId, text: 'Reason' }),
      reason,
      el('div', { class: 'buttons' }, approve, deny),
      outcome,
    ),
  );
  const decide = async (decision) => {
    approve.disabled = deny.disabled = true;
    const body = { decision, ...(reason.value.trim() ? { reason: reason.value.trim() } : {}) };
    try {
      const record = await api(`approvals/${encodeURIComponent(approval.id)}`, { method: 'POST', body: JSON.stringify(body) });
      say(`${record.status === 'approved' ? 'Approved' : 'Denied'}: ${approval.tool} ${approval.preview.path ?? ''} (${approval.id}).`);
      leave(approval.id);
      void poll(true);
    } catch (err) {
      if (err instanceof ApiError && err.status === 409) outcome.textContent = `Already decided elsewhere: ${err.message}`;
      else if (err instanceof ApiError && err.status === 404)
        outcome.textContent = 'This request expired or was removed before the decision.';
      else if (err instanceof ApiError && (err.status === 401 || err.status === 403)) return signOut(refusal(err));
      else outcome.textContent = `Not decided: ${err.message}`;
      approve.disabled = deny.disabled = err instanceof ApiError && (err.status === 409 || err.status === 404);
    }
  };
  approve.addEventListener('click', () => decide('approve'));
  deny.addEventListener('click', () => decide('deny'));
  article.querySelector('form').addEventListener('submit', (event) => event.preventDefault());
  return article;
}

/** Take a request off the page; focus, if it was inside, moves to the next request or the section's heading. */
function leave(id) {
  const article = shown.get(id);
  if (!article) return;
  const next = article.nextElementSibling ?? article.previousElementSibling;
  const hadFocus = article.contains(document.activeElement);
  article.remove();
  shown.delete(id);
  if (hadFocus) (next?.querySelector('button.approve') ?? $('pending-title')).focus();
}

function renderPending(approvals) {
  const ids = new Set(approvals.map((a) => a.id));
  for (const id of [...shown.keys()]) if (!ids.has(id)) leave(id);
  for (const approval of approvals) {
    const article = shown.get(approval.id);
    if (article) {
      const stale = article.querySelector('.stale');
      if (stale) stale.hidden = !approval.preview.file_changed;
      continue;
    }
    const view = requestView(approval);
    shown.set(approval.id, view);
    $('pending').append(view);
  }
  $('pending-empty').hidden = approvals.length > 0;
  $('pending-count').textContent = approvals.length > 0 ? `(${approvals.length})` : '';
}

function renderBreakers(circuits) {
  const open = circuits.filter((c) => c.state !== 'closed');
  const rows = open.map((circuit) => {
    const reset = el('button', { type: 'button', text: 'Reset' });
    reset.addEventListener('click', async () => {
      reset.disabled = true;
      try {
        await api(`circuits/${encodeURIComponent(circuit.tool)}/reset`, { method: 'POST', body: '{}' });
        say(`Breaker of ${circuit.tool} reset: closed.`);
      } catch (err) {
        say(`Breaker of ${circuit.tool} not reset: ${err.message}`);
      }
      void poll(true);
    });
    return el(
      'tr',
      {},
      el('th', { scope: 'row', text: circuit.tool }),
      el('td', { text: circuit.state.replace('_', '-') }),
      el('td', { text: String(circuit.failures) }),
      el('td', { text: when(circuit.reopens_at) || '–' }),
      el('td', {}, reset),
    );
  });
  const body = $('breakers').tBodies[0];
  // Rebuilt only when something changed, so a focused Reset button keeps its focus between polls.
  const signature = JSON.stringify(open);
  if (body.dataset.shown !== signature) {
    body.replaceChildren(...rows);
    body.dataset.shown = signature;
  }
  $('breakers-wrap').hidden = open.length === 0;
  $('breakers-empty').hidden = open.length > 0;
}

function renderDecisions(approvals) {
  const items = approvals.map((a) => {
    const who = a.user === undefined ? '' : ` for ${a.user}`;
    const what = `${a.tool}${a.preview.kind === 'diff' ? ` ${a.preview.path}` : ''}${who}: ${a.status} by ${a.decided_by ?? '?'} at ${when(a.decided_at)}`;
    return el('li', { text: a.reason ? `${what} — reason: ${a.reason}` : what });
  });
  $('decisions').replaceChildren(...items);
  $('decisions-empty').hidden = items.length > 0;
}

async function poll(once = false) {
  if (!once) clearTimeout(timer);
  try {
    const [pending, circuits, decided] = await Promise.all([
      api('approvals?limit=100'),
      api('circuits'),
      api('approvals?status=decided&limit=10'),
    ]);
    renderPending(pending.approvals);
    renderBreakers(circuits.circuits);
    renderDecisions(decided.approvals);
  } catch (err) {
    if (err instanceof ApiError && (err.status === 401 || err.status === 403)) return signOut(refusal(err));
    say(`The gateway did not answer (${err.message}); trying again.`);
  }
  if (!once && !$('console').hidden) timer = setTimeout(poll, POLL_MS);
}

$('sign-in').addEventListener('submit', signIn);
$('sign-out').addEventListener('click', () => signOut());
if (key !== null) start();
else $('key').focus();
