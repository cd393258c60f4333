// mnemon inspector: plain JavaScript, no dependencies. Everything it shows
// or changes goes through the /v1 API with the key the user entered; the
// key stays in this tab's sessionStorage. Text from the API is only ever
// set as text (never as HTML).
'use strict';

(() => {
  const KEY = 'mnemon.key', NS = 'mnemon.ns', OPEN = 'mnemon.open';
  const state = {
    key: sessionStorage.getItem(KEY) || '',
    ns: sessionStorage.getItem(NS) || '',
    caller: null,
  };
  // What the browser test and the docs' numbers read: the last page's
  // timings (fetch: API round trips; render: building the DOM).
  const perf = { route: '', fetchMs: 0, renderMs: 0, ready: false };
  window.mnemonInspector = perf;

  const main = document.getElementById('main');
  const statusEl = document.getElementById('status');

  // ---- DOM helpers --------------------------------------------------------

  // h builds an element: attrs sets properties/attributes (on* listeners,
  // class, data-*, aria-*), kids are nodes or text (null skipped).
  function h(tag, attrs, ...kids) {
    const el = tag.startsWith('svg:')
      ? document.createElementNS('http://www.w3.org/2000/svg', tag.slice(4))
      : document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
      else if (k === 'class') el.setAttribute('class', v);
      else if (k === 'text') el.textContent = v;
      else if (k === 'value' && !tag.startsWith('svg:')) el.value = v;
      else if (k === 'checked' || k === 'selected' || k === 'disabled') el[k] = !!v;
      else el.setAttribute(k, v === true ? '' : String(v));
    }
    for (const kid of kids.flat(Infinity)) {
      if (kid === null || kid === undefined || kid === false) continue;
      el.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
    }
    return el;
  }
  const text = (s) => document.createTextNode(s == null ? '' : String(s));
  // put appends nodes, skipping the null an absent part leaves (append
  // itself would show it as the text "null").
  const put = (el, ...kids) => {
    el.append(...kids.flat(Infinity).filter((k) => k !== null && k !== undefined && k !== false));
    return el;
  };
  const badge = (s) => h('span', { class: 'badge ' + s }, s);
  const link = (href, label, attrs) => h('a', Object.assign({ href }, attrs || {}), label);
  const memLink = (id, label) => link('#/memory/' + encodeURIComponent(id), label || id);
  const epLink = (id, label) => link('#/episode/' + encodeURIComponent(id), label || id);
  const fmtTime = (s) => {
    if (!s) return '';
    const d = new Date(s);
    if (isNaN(d) || d.getUTCFullYear() < 1700) return '';
    return d.toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z').replace(/:00Z$/, 'Z');
  };
  const num = (x, d) => (typeof x === 'number' ? x.toFixed(d === undefined ? 3 : d) : '');
  const table = (head, rows, attrs) => h('div', { class: 'tablewrap' },
    h('table', attrs || {},
      h('thead', {}, h('tr', {}, head.map((c) => h('th', { scope: 'col', class: /^(#|rank|score|fused|final|tokens|trust|count|attempt)/i.test(c) ? 'num' : null }, c)))),
      h('tbody', {}, rows)));
  const facts = (pairs) => h('dl', { class: 'facts' },
    pairs.filter((p) => p[1] !== '' && p[1] !== null && p[1] !== undefined).map(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]));

  function say(msg) {
    statusEl.textContent = msg;
    clearTimeout(say.t);
    say.t = setTimeout(() => { statusEl.textContent = ''; }, 4000);
  }

  // confirmAction asks in a modal dialog; resolves true on Confirm.
  function confirmAction(title, message, okLabel) {
    const dlg = document.getElementById('confirm');
    document.getElementById('confirm-title').textContent = title;
    document.getElementById('confirm-text').textContent = message;
    document.getElementById('confirm-ok').textContent = okLabel || 'Confirm';
    return new Promise((resolve) => {
      dlg.addEventListener('close', () => resolve(dlg.returnValue === 'ok'), { once: true });
      dlg.returnValue = '';
      dlg.showModal();
      document.getElementById('confirm-cancel').focus();
    });
  }

  // ---- API ----------------------------------------------------------------

  class APIError extends Error {
    constructor(status, body) {
      super((body && (body.detail || body.title)) || ('HTTP ' + status));
      this.status = status;
      this.code = body && body.code;
    }
  }

  // api calls the API; quiet calls (made beside a page, not for it) are
  // left out of the page's timings.
  async function api(method, path, body, quiet) {
    const headers = { Accept: 'application/json' };
    if (state.key) headers.Authorization = 'Bearer ' + state.key;
    else if (state.ns) headers['X-Mnemon-Namespace'] = state.ns;
    const init = { method, headers, cache: 'no-store' };
    if (body !== undefined) {
      headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    const t0 = performance.now();
    const res = await fetch(path, init);
    const raw = await res.text();
    if (!quiet) perf.fetchMs += performance.now() - t0;
    let data = null;
    try { data = raw ? JSON.parse(raw) : null; } catch (_) { data = null; }
    if (!res.ok) throw new APIError(res.status, data);
    return data;
  }
  const get = (path) => api('GET', path);
  const qs = (params) => {
    const u = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) if (v !== '' && v !== undefined && v !== null) u.set(k, v);
    const s = u.toString();
    return s ? '?' + s : '';
  };
  const can = (op) => !!(state.caller && state.caller.allowed.includes(op));

  // ---- key and caller -----------------------------------------------------

  function renderWho() {
    const who = document.getElementById('who');
    who.replaceChildren();
    if (state.caller) {
      const c = state.caller;
      who.append(h('span', { 'data-testid': 'caller' }, 'namespace ', h('b', {}, c.namespace), ' · ',
        badge(c.role), c.open_mode ? ' (open mode)' : ''));
      if (state.namespaces && state.namespaces.length > 1) who.append(namespacePicker(c));
      if (c.open_mode) {
        // Open mode names the namespace per request: switch here.
        const ns = h('input', { id: 'ns-switch', name: 'ns', value: c.namespace, size: 12, 'aria-label': 'Namespace' });
        who.append(h('form', { class: 'row', onsubmit: (e) => {
          e.preventDefault();
          state.ns = ns.value.trim();
          if (state.ns) sessionStorage.setItem(NS, state.ns); else sessionStorage.removeItem(NS);
          start();
        } }, ns, h('button', { type: 'submit', class: 'secondary' }, 'Switch')));
      }
    }
    who.append(h('button', { class: 'secondary', type: 'button', onclick: () => showKeyForm() },
      state.key ? 'Change key' : 'Enter key'));
    if (state.key) {
      who.append(h('button', { class: 'secondary', type: 'button', onclick: () => {
        sessionStorage.removeItem(KEY);
        sessionStorage.removeItem(KEYS);
        sessionStorage.removeItem(OPEN);
        state.key = '';
        start();
      } }, 'Forget key'));
    }
  }

  // namespacePicker lists the namespaces GET /v1/namespaces returned (an
  // admin key or open mode: all of them). Open mode switches at once; a key
  // acts in its own namespace only, so picking another uses a key of that
  // namespace entered before in this tab, or asks for one.
  function namespacePicker(c) {
    const sel = h('select', { id: 'ns-pick', name: 'ns-pick', 'data-testid': 'ns-pick', onchange: () => {
      const ns = sel.value;
      if (ns === c.namespace) return;
      if (c.open_mode) {
        state.ns = ns;
        sessionStorage.setItem(NS, ns);
        start();
        return;
      }
      const kept = keysByNamespace()[ns];
      if (kept) {
        state.key = kept;
        sessionStorage.setItem(KEY, kept);
        start();
        return;
      }
      sel.value = c.namespace;
      showKeyForm('', ns);
    } }, state.namespaces.map((ns) => h('option', { value: ns, selected: ns === c.namespace }, ns)));
    return h('label', { class: 'inline' }, 'Switch namespace', sel);
  }

  // keysByNamespace: the keys entered in this tab, by their namespace, so
  // an operator with keys of several namespaces can switch between them.
  const KEYS = 'mnemon.keys';
  function keysByNamespace() {
    try { return JSON.parse(sessionStorage.getItem(KEYS) || '{}') || {}; } catch (_) { return {}; }
  }

  function showKeyForm(problem, forNamespace) {
    const keyIn = h('input', { type: 'password', id: 'key', name: 'key', autocomplete: 'off', spellcheck: 'false', value: state.key });
    const nsIn = h('input', { type: 'text', id: 'ns', name: 'ns', autocomplete: 'off', placeholder: 'default', value: state.ns });
    main.replaceChildren();
    put(main,
      h('h1', {}, 'Sign in'),
      problem ? h('p', { class: 'error', role: 'alert' }, problem) : null,
      forNamespace ? h('p', { 'data-testid': 'key-for' }, 'A key acts in its own namespace only: enter a key of namespace ',
        h('b', {}, forNamespace), ' to look at it.') : null,
      h('p', { class: 'muted' }, 'Enter an API key (mnemon keys create). It is kept in this browser tab only and sent with each request. ',
        'A reader key shows everything and changes nothing. With no key configured (open mode, loopback only) leave it empty and name a namespace.'),
      h('form', { class: 'card', id: 'keyform', onsubmit: (e) => {
        e.preventDefault();
        state.key = keyIn.value.trim();
        state.ns = nsIn.value.trim();
        if (state.key) sessionStorage.setItem(KEY, state.key); else sessionStorage.removeItem(KEY);
        if (state.ns) sessionStorage.setItem(NS, state.ns); else sessionStorage.removeItem(NS);
        sessionStorage.setItem(OPEN, state.key ? '' : '1');
        start();
      } },
      h('div', { class: 'row' },
        h('label', { class: 'wide' }, 'API key', keyIn),
        h('label', {}, 'Namespace (open mode)', nsIn),
        h('button', { type: 'submit', id: 'key-submit' }, 'Continue'))));
    keyIn.focus();
  }

  async function start() {
    perf.ready = false;
    // Without a key, ask first (unless the user chose open mode in this
    // tab): a request bound to fail would only log an error.
    if (!state.key && !sessionStorage.getItem(OPEN)) {
      state.caller = null;
      renderWho();
      showKeyForm();
      perf.ready = true;
      document.body.dataset.ready = 'signin';
      return;
    }
    try {
      state.caller = await get('/v1/caller');
      if (state.key) {
        const keys = keysByNamespace();
        keys[state.caller.namespace] = state.key;
        sessionStorage.setItem(KEYS, JSON.stringify(keys));
      }
    } catch (e) {
      state.caller = null;
      renderWho();
      showKeyForm(e.status === 401 || e.status === 403 ? e.message : 'The server did not answer: ' + e.message);
      return;
    }
    state.namespaces = null;
    renderWho();
    route();
    // The picker comes when its list does, not before the first page.
    if (can('GET /v1/namespaces')) {
      const asked = state.caller;
      api('GET', '/v1/namespaces', undefined, true).then((l) => {
        if (state.caller !== asked) return;
        state.namespaces = l.namespaces;
        renderWho();
        document.body.dataset.namespaces = String(l.namespaces.length);
      }).catch(() => {});
    }
  }

  // ---- routing ------------------------------------------------------------

  function parseHash() {
    const raw = location.hash.replace(/^#\/?/, '');
    const [path, query] = raw.split('?');
    const parts = path.split('/').map(decodeURIComponent);
    return { page: parts[0] || 'memories', arg: parts.slice(1).join('/'), params: new URLSearchParams(query || '') };
  }
  const go = (hash) => { if (location.hash === hash) route(); else location.hash = hash; };

  const pages = {
    memories: pageMemories, memory: pageMemory, episode: pageEpisode,
    retrieve: pageRetrieve, retrieval: pageRetrieve, graph: pageGraph, activity: pageActivity,
  };

  async function route() {
    if (!state.caller) return;
    const r = parseHash();
    const fn = pages[r.page] || pageMemories;
    for (const a of document.querySelectorAll('nav a')) {
      const on = a.dataset.page === r.page || (a.dataset.page === 'memories' && (r.page === 'memory' || r.page === 'episode')) ||
        (a.dataset.page === 'retrieve' && r.page === 'retrieval');
      if (on) a.setAttribute('aria-current', 'page'); else a.removeAttribute('aria-current');
    }
    perf.route = r.page;
    perf.fetchMs = 0;
    perf.ready = false;
    delete document.body.dataset.ready;
    const t0 = performance.now();
    const view = h('div', {});
    try {
      if (fn === pageMemories && await pageMemoriesInPlace(r)) {
        finish(r, t0, false);
        return;
      }
      await fn(view, r);
    } catch (e) {
      if (e.status === 401) { state.caller = null; renderWho(); showKeyForm(e.message); return; }
      view.replaceChildren(h('h1', {}, 'Something went wrong'), h('p', { class: 'error', role: 'alert' }, e.message));
    }
    main.replaceChildren(view);
    finish(r, t0, true);
  }

  // finish records the page's timings (the render includes the style and
  // layout that focusing forces) and says the page is ready.
  function finish(r, t0, replaced) {
    // Focus the new content for keyboard and screen reader users (the
    // link that was clicked may be gone); a page turned in place starts
    // at its top.
    const tl = performance.now();
    main.focus({ preventScroll: true });
    if (!replaced) main.scrollIntoView({ block: 'start' });
    void main.offsetHeight; // lay out now, inside the measured time
    perf.layoutMs = performance.now() - tl;
    perf.renderMs = performance.now() - t0 - perf.fetchMs;
    perf.totalMs = performance.now() - t0;
    perf.readyAt = perf.readyAt || performance.now(); // the first page: interactive
    perf.ready = true;
    document.body.dataset.ready = r.page;
  }

  // ---- memories -----------------------------------------------------------

  const KINDS = ['episodic', 'semantic', 'procedural'];
  const TYPES = ['fact', 'preference', 'decision', 'constraint', 'goal', 'lesson', 'procedure', 'summary', 'event'];
  const STATUSES = ['active', 'contested', 'superseded', 'expired', 'candidate', 'quarantined', 'deleted'];
  const FILTERS = ['q', 'kind', 'type', 'status', 'subject', 'agent_id', 'user_id', 'project_id', 'session_id', 'since', 'until'];

  function select(name, label, options, value) {
    return h('label', {}, label, h('select', { name, id: 'f-' + name },
      options.map(([v, l]) => h('option', { value: v, selected: v === value }, l))));
  }
  const toISO = (local) => (local ? new Date(local).toISOString() : '');
  const toLocal = (iso) => {
    if (!iso) return '';
    const d = new Date(iso);
    if (isNaN(d)) return '';
    const p = (n) => String(n).padStart(2, '0');
    return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`;
  };

  async function pageMemories(view, r) {
    const p = r.params;
    const status = p.has('status') ? p.get('status') : 'active,contested';
    const page = Number(p.get('page') || 1);
    const query = { limit: 50, cursor: p.get('cursor') || '', status };
    for (const f of FILTERS) if (f !== 'status' && p.get(f)) query[f] = p.get(f);
    const data = await get('/v1/versions' + qs(query));

    const input = (name, label, attrs) => h('label', attrs || {}, label,
      h('input', Object.assign({ name, id: 'f-' + name, value: p.get(name) || '' }, name === 'q' ? { type: 'search' } : {})));
    const form = h('form', { class: 'filters', role: 'search', 'aria-label': 'Filter memories', onsubmit: (e) => {
      e.preventDefault();
      const fd = new FormData(e.target);
      const next = new URLSearchParams();
      for (const f of FILTERS) {
        let v = (fd.get(f) || '').trim();
        if (f === 'since' || f === 'until') v = toISO(v);
        if (v || f === 'status') next.set(f, v);
      }
      go('#/memories?' + next.toString());
    } },
    h('div', { class: 'row' },
      input('q', 'Search text', { class: 'wide' }),
      select('kind', 'Kind', [['', 'any'], ...KINDS.map((k) => [k, k])], p.get('kind') || ''),
      select('type', 'Type', [['', 'any'], ...TYPES.map((k) => [k, k])], p.get('type') || ''),
      select('status', 'Status', [['active,contested', 'live (active, contested)'], ['', 'any'],
        ['superseded,expired', 'history'], ...STATUSES.map((k) => [k, k])], status),
      input('subject', 'Subject'),
      h('button', { type: 'submit' }, 'Apply')),
    h('details', { open: FILTERS.slice(5).some((f) => p.get(f)) || null },
      h('summary', {}, 'Scope and time'),
      h('div', { class: 'row' },
        input('agent_id', 'Agent'), input('user_id', 'User'), input('project_id', 'Project'), input('session_id', 'Session'),
        h('label', {}, 'Recorded since', h('input', { type: 'datetime-local', name: 'since', id: 'f-since', value: toLocal(p.get('since')) })),
        h('label', {}, 'Recorded before', h('input', { type: 'datetime-local', name: 'until', id: 'f-until', value: toLocal(p.get('until')) })))));

    const tbody = memoryRows(data.versions);
    const pager = h('div', { class: 'pager' });
    fillPager(pager, p, page, data);
    put(view,
      h('h1', {}, 'Memories'),
      form,
      h('p', { class: 'muted', 'data-testid': 'empty', hidden: data.versions.length > 0 }, 'No memory matches these filters.'),
      h('div', { class: 'tablewrap', hidden: data.versions.length === 0 },
        h('table', { 'data-testid': 'memories', 'aria-label': 'Memories, newest first' },
          h('thead', {}, h('tr', {}, ['Content', 'Kind', 'Subject · key', 'Status', 'Trust', 'Recorded'].map((c) =>
            h('th', { scope: 'col', class: c === 'Trust' ? 'num' : null }, c)))),
          tbody)),
      pager);
    view.dataset.filters = filterKey(p);
  }

  // filterKey names a memory list's filters (not its page): paging keeps
  // the same key, so the next page replaces only the rows and the pager.
  const filterKey = (p) => {
    const q = new URLSearchParams(p);
    q.delete('cursor');
    q.delete('page');
    q.sort();
    return q.toString();
  };

  // memoryRow is the one row every memory row is cloned from: cloning a
  // built row and setting its texts costs far less than building 30
  // elements per row (measured: see the README's inspector section).
  let memoryRow = null;
  function memoryRows(versions) {
    if (!memoryRow) {
      memoryRow = h('tr', {},
        h('td', {}, h('a', {})),
        h('td', {}, text(''), h('br', {}), h('span', { class: 'muted small' })),
        h('td', { class: 'hide-narrow' }, text(''), h('br', {}), h('span', { class: 'muted small' })),
        h('td', {}, h('span', { class: 'badge' }), ' ', h('span', { class: 'muted small' })),
        h('td', { class: 'num hide-narrow' }),
        h('td', { class: 'hide-narrow small' }));
    }
    const frag = document.createDocumentFragment();
    for (const v of versions) {
      const tr = memoryRow.cloneNode(true);
      tr.dataset.memory = v.memory_id;
      tr.dataset.version = v.id;
      const [c0, c1, c2, c3, c4, c5] = tr.children;
      const a = c0.firstChild;
      a.href = '#/memory/' + encodeURIComponent(v.memory_id);
      a.textContent = v.content || v.value || v.key || v.memory_id;
      c1.firstChild.data = v.kind;
      c1.lastChild.textContent = v.type;
      c2.firstChild.data = v.subject || '';
      c2.lastChild.textContent = v.key || '';
      c3.firstChild.textContent = v.status;
      c3.firstChild.className = 'badge ' + v.status;
      c3.lastChild.textContent = 'v' + v.seq + ' ' + (v.operation || '');
      c4.textContent = num(v.trust, 2);
      c5.textContent = fmtTime(v.recorded_at);
      frag.append(tr);
    }
    return h('tbody', {}, frag);
  }

  function fillPager(pager, p, page, data) {
    const nextQ = new URLSearchParams(p);
    nextQ.set('cursor', data.next_cursor || '');
    nextQ.set('page', String(page + 1));
    const firstQ = new URLSearchParams(p);
    firstQ.delete('cursor');
    firstQ.delete('page');
    pager.replaceChildren();
    put(pager,
      page > 1 ? link('#/memories?' + firstQ.toString(), 'First page') : null,
      page > 1 ? h('button', { class: 'secondary', type: 'button', onclick: () => history.back() }, 'Previous') : null,
      h('span', { class: 'muted' }, 'Page ' + page + ' · ' + data.versions.length + ' shown, newest first'),
      data.next_cursor ? link('#/memories?' + nextQ.toString(), 'Next page', { 'data-testid': 'next', rel: 'next' }) : null);
  }

  // pageMemoriesInPlace turns the page of the memory list on screen when
  // only the page changed: one request, then the rows and the pager are
  // swapped in one step each (the form, headings and table stay). It
  // returns false when the list on screen has other filters.
  async function pageMemoriesInPlace(r) {
    const cur = main.firstElementChild;
    if (!cur || cur.dataset.filters === undefined || cur.dataset.filters !== filterKey(r.params)) return false;
    const p = r.params;
    const page = Number(p.get('page') || 1);
    const query = { limit: 50, cursor: p.get('cursor') || '', status: p.has('status') ? p.get('status') : 'active,contested' };
    for (const f of FILTERS) if (f !== 'status' && p.get(f)) query[f] = p.get(f);
    const data = await get('/v1/versions' + qs(query));
    if (cur !== main.firstElementChild) return false; // another route replaced it meanwhile
    perf.parsedAt = performance.now();
    const table = cur.querySelector('[data-testid=memories]');
    table.tBodies[0].replaceWith(memoryRows(data.versions));
    table.parentElement.hidden = data.versions.length === 0;
    cur.querySelector('[data-testid=empty]').hidden = data.versions.length > 0;
    fillPager(cur.querySelector('.pager'), p, page, data);
    perf.buildMs = performance.now() - perf.parsedAt;
    return true;
  }

  // ---- one memory: its timeline -------------------------------------------

  // highlight renders text with the cited byte spans marked.
  function highlight(content, spans) {
    const bytes = new TextEncoder().encode(content);
    const dec = new TextDecoder();
    const out = [];
    let pos = 0;
    for (const s of [...spans].sort((a, b) => a.start - b.start)) {
      const a = Math.max(pos, Math.min(s.start, bytes.length));
      const b = Math.max(a, Math.min(s.end, bytes.length));
      if (b <= a) continue;
      out.push(text(dec.decode(bytes.slice(pos, a))));
      out.push(h('mark', { 'data-testid': 'cited' }, dec.decode(bytes.slice(a, b))));
      pos = b;
    }
    out.push(text(dec.decode(bytes.slice(pos))));
    return out;
  }

  function evidence(v, episodes) {
    const ids = [...new Set([...(v.evidence_episode_ids || []), ...(v.evidence_spans || []).map((s) => s.episode_id)])];
    if (ids.length === 0) return null;
    return h('div', {}, h('h3', {}, 'Evidence'), ids.map((id) => {
      const ep = episodes.get(id);
      const spans = (v.evidence_spans || []).filter((s) => s.episode_id === id);
      if (!ep) return h('p', { class: 'muted small' }, epLink(id), ' (no longer held)');
      return h('div', { 'data-episode': id },
        h('blockquote', { class: 'episode' }, highlight(ep.content, spans)),
        h('p', { class: 'muted small' }, epLink(id), ' · ', ep.kind, ep.speaker ? ' by ' + ep.speaker : '', ' · ', fmtTime(ep.occurred_at),
          ep.scope && ep.scope.session_id ? ' · session ' + ep.scope.session_id : ''));
    }));
  }

  function admissionsList(as) {
    if (!as || as.length === 0) return null;
    return h('div', {}, h('h3', {}, 'Admission'), h('ul', { 'data-testid': 'version-admissions' }, as.map((a) => h('li', { 'data-decision': a.decision },
      badge(a.decision), ' ', a.operation || '', ' · ', (a.reasons || []).join(', '), ' · ',
      h('span', { class: 'muted small' }, fmtTime(a.created_at), a.episode_id ? ' · from ' : ''), a.episode_id ? epLink(a.episode_id) : null))));
  }

  function feedbackList(fs) {
    if (!fs || fs.length === 0) return null;
    return h('div', {}, h('h3', {}, 'Feedback'), table(['When', 'Outcome', 'Source', 'Usefulness', 'Trust', 'Status after', 'Retrieval'],
      fs.map((f) => h('tr', { 'data-feedback': f.id },
        h('td', { class: 'small' }, fmtTime(f.created_at)), h('td', {}, badge(f.outcome), f.used ? '' : ' (unused)'),
        h('td', {}, f.source), h('td', {}, num(f.usefulness_before, 2) + ' → ' + num(f.usefulness_after, 2)),
        h('td', {}, num(f.trust_before, 2) + ' → ' + num(f.trust_after, 2)), h('td', {}, f.status_after),
        h('td', {}, link('#/retrieval/' + encodeURIComponent(f.retrieval_id), f.retrieval_id)))), { 'data-testid': 'version-feedback' }));
  }

  async function pageMemory(view, r) {
    const ex = await get('/v1/memories/' + encodeURIComponent(r.arg) + '/explain');
    const m = ex.memory;
    if (!m) {
      put(view, h('h1', {}, 'Not a memory'), h('p', {}, 'This id is a retrieval: ', link('#/retrieval/' + encodeURIComponent(r.arg), 'open its trace'), '.'));
      return;
    }
    const episodes = new Map((m.episodes || []).map((e) => [e.id, e]));
    const versions = [...m.versions].reverse(); // newest first
    const live = versions.find((x) => x.version.status === 'active' || x.version.status === 'contested');
    const mem = m.memory;
    const scope = Object.entries(mem.scope || {}).map(([k, v]) => k.replace('_id', '') + ' ' + v).join(', ') || 'namespace-wide';
    const gone = versions.every((x) => x.version.status === 'deleted');
    put(view, 
      h('p', { class: 'small' }, link('#/memories', '← Memories')),
      h('h1', {}, mem.subject + ' · ' + mem.key),
      facts([['Memory', h('code', {}, mem.id)], ['Kind', mem.kind], ['Scope', scope], ['Created', fmtTime(mem.created_at)],
        ['Now', live ? [badge(live.action), ' trust ', num(live.trust, 2), ' ± ', num(live.uncertainty, 2)] : (gone ? badge('deleted') : 'no live version')],
        ['Chain', (m.chain || []).length > 1 ? m.chain.join(' → ') : '']]),
      h('div', { class: 'actions' },
        link('#/graph?entity=' + encodeURIComponent(mem.subject), 'Graph around ' + mem.subject),
        can('DELETE /v1/memories/{id}') && !gone ? h('button', { class: 'danger', type: 'button', 'data-testid': 'forget', onclick: async (e) => {
          const ok = await confirmAction('Forget this memory?', 'Every version of "' + mem.subject + ' · ' + mem.key +
            '" leaves retrieval, with the episodes it came from. This cannot be undone from here.', 'Forget');
          if (!ok) return;
          e.target.disabled = true;
          try {
            const res = await api('DELETE', '/v1/memories/' + encodeURIComponent(mem.id));
            say('Forgotten: ' + res.versions.length + ' versions, ' + res.episodes.length + ' episodes.');
            go('#/memories');
          } catch (err) {
            e.target.disabled = false;
            say('Forget failed: ' + err.message);
          }
        } }, 'Forget memory') : null),
      h('h2', {}, 'Timeline'),
      h('ol', { class: 'timeline', 'data-testid': 'timeline' }, versions.map((x) => {
        const v = x.version;
        const isLive = v.status === 'active' || v.status === 'contested';
        return h('li', { class: isLive ? 'live' : 'history', 'data-version': v.id },
          h('div', { class: 'card' },
            h('p', {}, h('b', {}, 'v' + v.seq), ' ', badge(v.status), ' ', x.operation || v.operation, ' ', badge(x.action)),
            h('p', { class: 'content' }, v.content),
            facts([['Value', v.value], ['Valid', fmtTime(v.valid_from) + ' → ' + (v.valid_to ? fmtTime(v.valid_to) : 'now')],
              ['Recorded', fmtTime(v.recorded_at)], ['Observed', fmtTime(v.observed_at)],
              ['Confidence', num(v.confidence, 2)], ['Usefulness', num(v.usefulness, 2)],
              ['Trust', num(x.trust, 2) + ' (uncertainty ' + num(x.uncertainty, 2) + ')'],
              ['Reinforced', String(v.reinforcement_count) + ' · failed ' + v.failure_count],
              ['Superseded by', v.superseded_by ? h('code', {}, v.superseded_by) : ''],
              ['Extractor', [v.provenance && v.provenance.extractor, v.provenance && v.provenance.model].filter(Boolean).join(' · ')]]),
            (x.why || []).length ? h('ul', { class: 'small muted' }, x.why.map((w) => h('li', {}, w))) : null,
            evidence(v, episodes),
            admissionsList(x.admissions),
            feedbackList(x.feedback)));
      })));
  }

  async function pageEpisode(view, r) {
    const mv = await get('/v1/memories/' + encodeURIComponent(r.arg));
    const ep = mv.episode;
    if (!ep) { go('#/memory/' + encodeURIComponent(r.arg)); return; }
    put(view, 
      h('p', { class: 'small' }, link('#/memories', '← Memories')),
      h('h1', {}, 'Episode'),
      h('blockquote', { class: 'episode', 'data-testid': 'episode' }, ep.content),
      facts([['Id', h('code', {}, ep.id)], ['Kind', ep.kind], ['Speaker', ep.speaker || ''], ['Occurred', fmtTime(ep.occurred_at)],
        ['Recorded', fmtTime(ep.recorded_at)], ['Session', (ep.scope && ep.scope.session_id) || ''],
        ['Metadata', ep.metadata ? Object.entries(ep.metadata).map(([k, v]) => k + '=' + v).join(', ') : '']]),
      h('h2', {}, 'What was decided about it'),
      (mv.admissions || []).length === 0 ? h('p', { class: 'muted' }, 'No decision names this episode.') :
        table(['When', 'Decision', 'Operation', 'Reasons', 'Candidate', 'Memory'], mv.admissions.map((a) => h('tr', {},
          h('td', { class: 'small' }, fmtTime(a.created_at)), h('td', {}, badge(a.decision)), h('td', {}, a.operation || ''),
          h('td', { class: 'small' }, (a.reasons || []).join(', ')), h('td', {}, a.content),
          h('td', {}, a.memory_id ? memLink(a.memory_id) : '')))));
  }

  // ---- retrieval console --------------------------------------------------

  async function pageRetrieve(view, r) {
    const p = r.params;
    const field = (name, label, attrs) => h('label', {}, label, h('input', Object.assign({ name, id: 'r-' + name, value: p.get(name) || '' }, attrs || {})));
    const out = h('div', { id: 'retrieval-result' });
    const form = h('form', { class: 'card', 'aria-label': 'Retrieve', onsubmit: async (e) => {
      e.preventDefault();
      const fd = new FormData(e.target);
      const body = { query: fd.get('query') };
      for (const k of ['agent_id', 'user_id', 'project_id', 'session_id', 'task_type']) if (fd.get(k)) body[k] = fd.get(k);
      for (const k of ['token_budget', 'limit']) if (fd.get(k)) body[k] = Number(fd.get(k));
      for (const k of ['as_of', 'known_at']) if (fd.get(k)) body[k] = toISO(fd.get(k));
      if (fd.get('include_history')) body.include_history = true;
      const btn = e.target.querySelector('button[type=submit]');
      btn.disabled = true;
      perf.ready = false;
      try {
        const res = await api('POST', '/v1/memories/retrieve', body);
        const trace = res.retrieval_id ? await get('/v1/retrievals/' + encodeURIComponent(res.retrieval_id)) : null;
        out.replaceChildren();
        put(out, retrievalView(res, trace));
        history.replaceState(null, '', '#/retrieval/' + encodeURIComponent(res.retrieval_id || ''));
      } catch (err) {
        out.replaceChildren(h('p', { class: 'error', role: 'alert' }, err.message));
      } finally {
        btn.disabled = false;
        perf.ready = true;
      }
    } },
    h('div', { class: 'row' },
      h('label', { class: 'wide' }, 'Query', h('input', { name: 'query', id: 'r-query', required: true, value: p.get('query') || '', type: 'search' })),
      field('token_budget', 'Token budget', { type: 'number', min: 1, max: 200000, placeholder: '1000' }),
      field('limit', 'Items', { type: 'number', min: 1, max: 100, placeholder: '10' }),
      h('button', { type: 'submit', id: 'r-submit' }, 'Retrieve')),
    h('details', {}, h('summary', {}, 'Scope, time and history'),
      h('div', { class: 'row' },
        field('agent_id', 'Agent'), field('user_id', 'User'), field('project_id', 'Project'), field('session_id', 'Session'),
        field('task_type', 'Task type'),
        field('as_of', 'As of (valid time)', { type: 'datetime-local' }),
        field('known_at', 'Known at (record time)', { type: 'datetime-local' }),
        h('label', { class: 'inline' }, h('input', { type: 'checkbox', name: 'include_history', id: 'r-include_history' }), 'Include history'))));
    put(view, h('h1', {}, 'Retrieval console'),
      h('p', { class: 'muted' }, 'See the context an agent would get, and for every candidate why it ranked where it did.'), form, out);
    if (r.page === 'retrieval' && r.arg) {
      const ex = await get('/v1/memories/' + encodeURIComponent(r.arg) + '/explain');
      const rx = ex.retrieval;
      const q = rx.trace.query;
      view.querySelector('#r-query').value = q;
      put(out, retrievalView(null, rx.trace, rx));
    }
  }

  // retrievalView shows the packed context and the per-candidate,
  // per-channel trace table (res: the retrieve response when just run).
  function retrievalView(res, trace, explained) {
    const nodes = [];
    const items = res ? res.items : [];
    const byVersion = new Map(items.map((it) => [it.version_id, it]));
    if (res) {
      nodes.push(h('h2', {}, 'Packed context'),
        h('p', { class: 'muted small' }, res.tokens_used + ' tokens · ', link('#/retrieval/' + encodeURIComponent(res.retrieval_id), res.retrieval_id)),
        res.hint ? h('p', { class: 'muted' }, res.hint) : null,
        h('pre', { 'data-testid': 'context' }, res.context || '(empty)'));
    } else if (trace) {
      nodes.push(h('p', { class: 'muted small' }, 'Retrieval ', h('code', {}, trace.id), ' at ', fmtTime(trace.created_at),
        ' · ', trace.tokens_used + ' of ' + trace.token_budget + ' tokens'));
    }
    if (!trace) return nodes;
    // Where the retrieval left its usual path, and what its model calls
    // cost (absent without a model provider).
    if (trace.notes && trace.notes.length) {
      nodes.push(h('h2', {}, 'Notes'), h('ul', { 'data-testid': 'trace-notes' }, trace.notes.map((n) => h('li', { class: 'small' }, n))));
    }
    if (trace.models && trace.models.length) {
      nodes.push(h('h2', {}, 'Model calls'), table(['Model', 'Endpoint', 'Calls', 'Failed', 'Tokens in', 'Tokens out', 'Time'],
        trace.models.map((m) => h('tr', {}, h('td', {}, m.model), h('td', {}, m.endpoint), h('td', { class: 'num' }, m.calls),
          h('td', { class: 'num' }, m.errors || 0), h('td', { class: 'num' }, m.tokens_in || 0), h('td', { class: 'num' }, m.tokens_out || 0),
          h('td', { class: 'num' }, (m.duration_us / 1000).toFixed(1) + ' ms'))),
        { 'data-testid': 'trace-models', 'aria-label': 'The retrieval\'s model calls, per model and endpoint' }));
    }
    const channels = [...new Set(trace.items.flatMap((it) => Object.keys(it.channels || {})))].sort();
    const termNames = (it) => Object.entries(it.terms || {}).filter(([, v]) => v !== 0)
      .map(([k, v]) => k + (v > 0 ? ' +' : ' ') + v.toFixed(3)).join(', ');
    const rows = [...trace.items].sort((a, b) => a.rank - b.rank).map((it) => {
      const known = byVersion.get(it.version_id);
      return h('tr', { 'data-version': it.version_id, 'data-packed': String(it.packed) },
        h('td', { class: 'num' }, it.rank),
        h('td', {}, memLink(it.memory_id, known ? known.content : it.memory_id), h('br', {}), h('span', { class: 'muted small' }, it.version_id)),
        channels.map((c) => {
          const hit = (it.channels || {})[c];
          return h('td', { class: 'num', 'data-channel': c, 'data-rank': hit ? hit.rank : '', 'data-score': hit ? hit.score : '' },
            hit ? '#' + hit.rank + ' · ' + hit.score.toFixed(3) : '–');
        }),
        h('td', { class: 'num' }, num(it.fused)),
        h('td', { class: 'small' }, termNames(it)),
        h('td', { class: 'num' }, num(it.final)),
        h('td', { class: 'num' }, it.tokens),
        h('td', {}, it.action ? badge(it.action) : '', ' ', num(it.trust, 2)),
        h('td', {}, it.packed ? 'packed' : 'no', h('br', {}), h('span', { class: 'muted small' }, it.reason || '')));
    });
    nodes.push(h('h2', {}, 'Trace: every candidate'),
      table(['Rank', 'Memory', ...channels.map((c) => c), 'Fused', 'Terms', 'Final', 'Tokens', 'Trust', 'Packed'], rows,
        { 'data-testid': 'trace', 'aria-label': 'Candidates by final rank, each channel\'s rank and score' }));
    if (can('POST /v1/retrievals/{id}/feedback') && trace.items.some((it) => it.packed)) {
      const out = h('div', { 'aria-live': 'polite' });
      // The buttons rate the packed items, so they are named as used: without
      // memory_ids and without an output, the server counts none as used and
      // helpful would reinforce nothing.
      const packed = [...new Set(trace.items.filter((it) => it.packed).map((it) => it.memory_id))];
      const send = (outcome) => async () => {
        try {
          const fb = await api('POST', '/v1/retrievals/' + encodeURIComponent(trace.id) + '/feedback', { outcome, source: 'user', memory_ids: packed });
          out.replaceChildren();
          put(out, h('p', { 'data-testid': 'feedback-result' }, 'Feedback ' + outcome + ': ' + fb.applied.length + ' applied, ' +
            fb.duplicates.length + ' already recorded.'),
          fb.applied.length ? h('ul', { class: 'small' }, fb.applied.map((a) => h('li', {}, memLink(a.memory_id), ': usefulness ',
            num(a.usefulness_before, 2), ' → ', num(a.usefulness_after, 2), ', trust ', num(a.trust_before, 2), ' → ', num(a.trust_after, 2)))) : null);
        } catch (err) {
          out.replaceChildren(h('p', { class: 'error' }, err.message));
        }
      };
      nodes.push(h('h2', {}, 'Feedback on the packed items'),
        h('div', { class: 'actions' },
          h('button', { type: 'button', onclick: send('helpful'), 'data-testid': 'fb-helpful' }, 'Helpful'),
          h('button', { type: 'button', class: 'secondary', onclick: send('unused') }, 'Unused'),
          h('button', { type: 'button', class: 'danger', onclick: send('harmful') }, 'Harmful')), out);
    }
    if (explained && explained.feedback && explained.feedback.length) nodes.push(feedbackList(explained.feedback));
    return nodes;
  }

  // ---- graph --------------------------------------------------------------

  async function pageGraph(view, r) {
    const p = r.params;
    const entity = p.get('entity') || 'user';
    const hops = p.get('hops') || '2';
    const history = p.get('include_history') === 'true';
    const g = await get('/v1/graph/neighborhood' + qs({ entity, hops, include_history: history ? 'true' : '' }));
    const form = h('form', { class: 'filters', 'aria-label': 'Entity', onsubmit: (e) => {
      e.preventDefault();
      const fd = new FormData(e.target);
      go('#/graph' + qs({ entity: fd.get('entity'), hops: fd.get('hops'), include_history: fd.get('include_history') ? 'true' : '' }));
    } }, h('div', { class: 'row' },
      h('label', {}, 'Entity', h('input', { name: 'entity', id: 'g-entity', value: entity })),
      select('hops', 'Hops', [['1', '1'], ['2', '2']], hops),
      h('label', { class: 'inline' }, h('input', { type: 'checkbox', name: 'include_history', checked: history }), 'Include history'),
      h('button', { type: 'submit' }, 'Show')));
    put(view, h('h1', {}, 'Graph'), form);
    if (g.claims.length === 0) {
      put(view, h('p', { class: 'muted' }, 'No claim names "' + entity + '".'));
      return;
    }
    // Layout: the entity in the middle, hop 1 on an inner ring, hop 2 on
    // an outer one.
    const W = 760, H = 560, cx = W / 2, cy = H / 2;
    const names = new Map(g.entities.map((e) => [e.name, e.hop]));
    for (const c of g.claims) for (const n of [c.subject.toLowerCase(), c.object]) if (!names.has(n)) names.set(n, Math.min(2, c.hop));
    const rings = [[], [], []];
    for (const [n, hop] of names) rings[Math.min(hop, 2)].push(n);
    const pos = new Map();
    rings.forEach((ring, hop) => ring.forEach((n, i) => {
      const rad = hop === 0 ? 0 : hop === 1 ? 150 : 250;
      const a = (2 * Math.PI * i) / Math.max(ring.length, 1) + (hop === 2 ? 0.3 : 0);
      pos.set(n, [cx + rad * Math.cos(a) * (hop === 0 && ring.length > 1 ? 0 : 1), cy + rad * Math.sin(a)]);
    }));
    const svg = h('svg:svg', { class: 'graph', viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': 'Claims around ' + entity, 'data-testid': 'graph' });
    const edges = h('svg:g', {}), labels = h('svg:g', {}), nodes = h('svg:g', {});
    g.claims.forEach((c, i) => {
      const a = pos.get(c.subject.toLowerCase()), b = pos.get(c.object);
      if (!a || !b) return;
      const current = c.status === 'active' || c.status === 'contested';
      edges.append(h('svg:line', { x1: a[0], y1: a[1], x2: b[0], y2: b[1], class: current ? null : 'history' }));
      const mx = (a[0] + b[0]) / 2, my = (a[1] + b[1]) / 2 + ((i % 3) - 1) * 12;
      labels.append(h('svg:a', { href: '#/memory/' + encodeURIComponent(c.memory_id), 'data-claim': c.memory_id },
        h('svg:title', {}, c.content + (c.valid_to ? ' (until ' + fmtTime(c.valid_to) + ')' : '')),
        h('svg:text', { x: mx, y: my, 'text-anchor': 'middle', class: 'rel' }, c.relation)));
    });
    for (const [n, [x, y]] of pos) {
      const hop = names.get(n);
      nodes.append(h('svg:a', { href: '#/graph' + qs({ entity: n, hops }) },
        h('svg:circle', { cx: x, cy: y, r: hop === 0 ? 10 : 7, class: 'hop' + hop }),
        h('svg:text', { x, y: y - 13, 'text-anchor': 'middle' }, n)));
    }
    svg.append(edges, nodes, labels);
    put(view, svg, g.truncated ? h('p', { class: 'muted' }, 'More claims were in reach than shown.') : null,
      h('h2', {}, 'Claims'),
      table(['Subject', 'Relation', 'Object', 'Status', 'Valid', 'Hop'], g.claims.map((c) => h('tr', {},
        h('td', {}, c.subject), h('td', {}, memLink(c.memory_id, c.relation)), h('td', {}, c.value),
        h('td', {}, badge(c.status)), h('td', { class: 'small' }, fmtTime(c.valid_from) + ' → ' + (c.valid_to ? fmtTime(c.valid_to) : 'now')),
        h('td', { class: 'num' }, c.hop)))));
  }

  // ---- activity -----------------------------------------------------------

  // barChart draws counts as bars (values: [{start, count}]) with an
  // accessible title per bar.
  function barChart(label, buckets, value, fmt, cls) {
    const W = 600, H = 140, pad = 18;
    const max = Math.max(1, ...buckets.map(value));
    const bw = (W - pad) / Math.max(buckets.length, 1);
    const svg = h('svg:svg', { class: 'chart', viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-label': label, preserveAspectRatio: 'none' });
    svg.append(h('svg:line', { x1: pad, y1: H - pad, x2: W, y2: H - pad }));
    buckets.forEach((b, i) => {
      const v = value(b);
      const bh = ((H - 2 * pad) * v) / max;
      svg.append(h('svg:rect', { class: cls || 'bar', x: pad + i * bw + 1, y: H - pad - bh, width: Math.max(bw - 2, 1), height: bh },
        h('svg:title', {}, fmtTime(b.start) + ': ' + fmt(v))));
    });
    // Axis notes in HTML: SVG text would stretch with the chart.
    const first = buckets[0] ? fmtTime(buckets[0].start).slice(0, 16) : '';
    const last = buckets.length ? fmtTime(buckets[buckets.length - 1].start).slice(0, 16) : '';
    return h('figure', { class: 'card' }, h('figcaption', {}, label), svg,
      h('p', { class: 'muted small axis' }, 'peak ' + fmt(max) + ' · ' + first + ' → ' + last));
  }

  // reportsView shows the last lifecycle, consolidation and procedure
  // reports (GET /v1/reports): counts first, the whole report folded.
  function reportsView(rs) {
    const lc = rs.lifecycle, co = rs.consolidation, pr = rs.procedures;
    const out = [h('h2', {}, 'Last reports'),
      h('p', { class: 'muted small' }, 'The last run of each, from this page or the API, kept by this server process only: a restart forgets them.')];
    if (!lc && !co && !pr) return [...out, h('p', { class: 'muted' }, 'None run since the server started.')];
    const item = (kind, title, at, summary, report) => h('div', { class: 'card', 'data-report': kind },
      h('h3', {}, title, ' ', h('span', { class: 'muted small' }, fmtTime(at))),
      h('p', {}, summary),
      h('details', {}, h('summary', {}, 'The whole report'), h('pre', {}, JSON.stringify(report, null, 2))));
    if (lc) {
      const l = lc.report.lifecycle || {}, d = lc.report.dedupe;
      out.push(item('lifecycle', 'Lifecycle' + (lc.dry_run ? ' (dry run)' : ''), lc.at,
        `${l.expired || 0} expired, ${l.decayed || 0} decayed, ${l.floored || 0} floored, ${l.contests_resolved || 0} contests resolved` +
        (d ? `; dedupe: ${d.clusters || 0} clusters, ${d.superseded || 0} superseded` : "; no dedupe"), lc.report));
    }
    if (co) {
      const c = co.report;
      out.push(item('consolidation', 'Consolidation of ' + co.session_id, co.at,
        `${(c.sessions || []).map((x) => x.session_id + ': ' + x.status).join(', ') || 'no session'}; ` +
        `${(c.forgotten || []).length} episodes forgotten, ${(c.purged || []).length} purged`, c));
    }
    if (pr) out.push(item('procedures', 'Procedure promotion', pr.at, Object.entries(pr.report)
      .filter(([, v]) => Array.isArray(v)).map(([k, v]) => v.length + ' ' + k.replace(/_/g, ' ')).join(', ') || 'done', pr.report));
    return out;
  }

  async function pageActivity(view, r) {
    const p = r.params;
    const decision = p.get('decision') || '';
    const jobState = p.get('state') || '';
    const [st, adm, jobs, reps] = await Promise.all([
      get('/v1/stats'), get('/v1/admissions' + qs({ decision, limit: 100 })), get('/v1/jobs' + qs({ state: jobState, limit: 50 })),
      get('/v1/reports'),
    ]);
    const lastReports = h('section', { 'aria-label': 'Last reports', 'data-testid': 'last-reports' });
    const showReports = (rs) => lastReports.replaceChildren(...reportsView(rs));
    showReports(reps);
    const stat = (label, v) => h('div', { class: 'stat' }, h('b', {}, v), label);
    const retrievals = st.retrievals.reduce((n, b) => n + b.count, 0);
    put(view, h('h1', {}, 'Activity'),
      h('div', { class: 'stats', 'data-testid': 'stats' },
        stat('memories', st.memories), stat('episodes', st.episodes), stat('live versions', (st.versions.active || 0) + (st.versions.contested || 0)),
        stat('admissions', st.admissions), stat('retrievals (24 h)', retrievals), stat('p95 latency (24 h)', st.p95_ms.toFixed(1) + ' ms'),
        stat('indexed', st.indexed)),
      h('div', { class: 'charts' },
        barChart('Versions written per day (30 days)', st.writes, (b) => b.count, (v) => String(v)),
        barChart('Retrievals per hour (24 h)', st.retrievals, (b) => b.count, (v) => String(v)),
        barChart('p95 retrieval latency per hour (ms)', st.retrievals, (b) => b.p95_ms || 0, (v) => v.toFixed(1) + ' ms', 'bar2')),
      st.truncated ? h('p', { class: 'muted small' }, 'Counted from the newest 20,000 rows of each window.') : null);

    // Maintenance an admin may run.
    if (can('POST /v1/lifecycle/run') || can('POST /v1/sessions/{id}/consolidate')) {
      const result = h('div', { 'aria-live': 'polite' });
      const run = (title, msg, fn) => async () => {
        if (!(await confirmAction(title, msg, 'Run'))) return;
        try {
          const res = await fn();
          result.replaceChildren(h('h3', {}, title + ': done'), h('pre', { 'data-testid': 'action-result' }, JSON.stringify(res, null, 2)));
          get('/v1/reports').then(showReports).catch(() => {});
        } catch (err) {
          result.replaceChildren(h('p', { class: 'error' }, err.message));
        }
      };
      const sess = h('input', { id: 'a-session', name: 'session', placeholder: 'session id' });
      put(view, h('h2', {}, 'Maintenance'), h('div', { class: 'actions' },
        can('POST /v1/lifecycle/run') ? h('button', { type: 'button', 'data-testid': 'run-lifecycle', onclick: run('Run lifecycle now',
          'Expire, decay usefulness, resolve contests and merge duplicates now, as the periodic maintenance does.',
          () => api('POST', '/v1/lifecycle/run', { dedupe: true })) }, 'Run lifecycle now') : null,
        can('POST /v1/sessions/{id}/consolidate') ? h('label', {}, 'Session to consolidate', sess) : null,
        can('POST /v1/sessions/{id}/consolidate') ? h('button', { type: 'button', onclick: run('Consolidate session',
          'Summarise the session now (even if recent) and forget its faded turns.',
          () => { if (!sess.value.trim()) throw new Error('name a session'); return api('POST', '/v1/sessions/' + encodeURIComponent(sess.value.trim()) + '/consolidate', { force: true }); }) },
        'Consolidate now') : null,
        can('POST /v1/procedures/promote') ? h('button', { type: 'button', class: 'secondary', onclick: run('Promote procedures',
          'Distil procedures from successful sessions now.', () => api('POST', '/v1/procedures/promote')) }, 'Promote procedures') : null), result);
    }

    put(view, lastReports);

    const filterForm = (name, label, options, value) => h('form', { class: 'row', onsubmit: (e) => e.preventDefault() },
      h('label', {}, label, h('select', { name, id: 'act-' + name, onchange: (e) => {
        const q = new URLSearchParams(p);
        if (e.target.value) q.set(name, e.target.value); else q.delete(name);
        go('#/activity?' + q.toString());
      } }, options.map((o) => h('option', { value: o, selected: o === value }, o || 'all')))));

    put(view, h('p', {}, link('#/memories?kind=episodic&status=', 'Recent captures (episodes, newest first)')),
      h('h2', {}, 'Admission log'),
      filterForm('decision', 'Decision', ['', 'accept', 'defer', 'reject', 'quarantine'], decision),
      decision === 'quarantine' ? h('p', { class: 'muted small' }, 'Quarantined text tried to instruct the agent; it is never served. ' +
        'Open its episode to review it; forget the memory to drop it.') : null,
      adm.admissions.length === 0 ? h('p', { class: 'muted' }, 'No decision to show.') :
        table(['When', 'Decision', 'Operation', 'Reasons', 'Candidate', 'Memory', 'Episode'], adm.admissions.map((a) => h('tr', { 'data-decision': a.decision },
          h('td', { class: 'small' }, fmtTime(a.created_at)), h('td', {}, badge(a.decision)), h('td', {}, a.operation || ''),
          h('td', { class: 'small' }, (a.reasons || []).join(', ')), h('td', {}, a.content),
          h('td', {}, a.memory_id ? memLink(a.memory_id, 'open') : ''), h('td', {}, a.episode_id ? epLink(a.episode_id, 'open') : ''))),
        { 'data-testid': 'admissions' }));

    put(view, h('h2', {}, 'Jobs'),
      filterForm('state', 'State', ['', 'pending', 'running', 'succeeded', 'failed'], jobState),
      jobs.jobs.length === 0 ? h('p', { class: 'muted' }, 'No job to show.') :
        table(['Job', 'Kind', 'State', 'Attempt', 'Error', 'Created', 'Finished', ''], jobs.jobs.map((j) => h('tr', { 'data-job': j.id },
          h('td', {}, h('code', {}, j.id)), h('td', {}, j.kind), h('td', {}, badge(j.state)), h('td', { class: 'num' }, j.attempt + '/' + j.max_attempts),
          h('td', { class: 'small' }, j.error || ''), h('td', { class: 'small' }, fmtTime(j.created_at)), h('td', { class: 'small' }, fmtTime(j.finished_at)),
          h('td', {}, j.state === 'failed' && can('POST /v1/jobs/{id}/retry') ? h('button', { type: 'button', class: 'secondary', onclick: async () => {
            if (!(await confirmAction('Retry job ' + j.id + '?', 'Run it again now, with one more attempt.', 'Retry'))) return;
            try {
              const res = await api('POST', '/v1/jobs/' + encodeURIComponent(j.id) + '/retry');
              say('Job ' + res.id + ' is ' + res.state + '.');
              route();
            } catch (err) { say('Retry failed: ' + err.message); }
          } }, 'Retry') : null))), { 'data-testid': 'jobs' }));
  }

  // ---- start --------------------------------------------------------------

  window.addEventListener('hashchange', () => route());
  start();
})();
