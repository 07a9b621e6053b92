// msprobe report page: reads the embedded columnar data (see docs/report.md, "Data") and draws
// the summary, the plot (dygraphs), the heat map of several ranks and the lazily rendered tree.
(function () {
  'use strict';
  const VERDICTS = ['nodata', 'pass', 'unmatched', 'warning', 'error'];
  const VERDICT_TEXT = ['no data', 'pass', 'unmatched', 'warning', 'error'];
  const ROW_H = 20;
  const state = { ready: false, errors: [], part: 0, selected: -1, plotPoints: 0, visibleRows: 0,
                  matches: 0, readyMs: 0, timings: {} };
  const mark = (what) => { state.timings[what] = Math.round(performance.now()); };
  window.msprobeReport = state;

  const $ = (id) => document.getElementById(id);
  function showError(text) {
    state.errors.push(text);
    const box = $('errors');
    box.hidden = false;
    box.textContent = state.errors.join('\n');
  }
  window.addEventListener('error', (e) => showError('Error: ' + e.message));

  // ---- data -------------------------------------------------------------------------------
  function bytes(b64) {
    const bin = atob(b64);
    const out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  }
  const f32 = (s) => new Float32Array(bytes(s).buffer);
  const i32 = (s) => new Int32Array(bytes(s).buffer);
  const u32 = (s) => new Uint32Array(bytes(s).buffer);
  const u8 = (s) => bytes(s);
  function indices(s, w) {
    const b = bytes(s);
    return w === 1 ? b : w === 2 ? new Uint16Array(b.buffer) : new Uint32Array(b.buffer);
  }
  function esc(s) {
    return String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]));
  }
  function fmt(v) {
    if (v === null || v === undefined) return '';
    if (typeof v === 'string') return v;
    if (typeof v === 'boolean') return v ? 'True' : 'False';
    if (Number.isNaN(v)) return 'nan';
    if (!Number.isFinite(v)) return v > 0 ? 'inf' : '-inf';
    if (v === Math.round(v) && Math.abs(v) < 1e7) return String(v);
    const a = Math.abs(v);
    return a !== 0 && (a < 1e-4 || a >= 1e7) ? v.toExponential(4) : String(Number(v.toPrecision(7)));
  }
  mark('script');
  const DATA = JSON.parse($('msprobe-data').textContent);
  mark('parsed');
  if (DATA.kind === 'check') VERDICT_TEXT[2] = 'skipped';
  const parts = DATA.parts.map(() => null);

  // A part's arrays, decoded on first use.
  function part(i) {
    if (parts[i]) return parts[i];
    const raw = DATA.parts[i];
    const E = raw.entries;
    const p = {
      raw, n: E.n, withRows: E.withRows, names: E.names, parent: i32(E.parent),
      childStart: i32(E.childStart), children: i32(E.children), verdict: u8(E.verdict),
      subtree: u8(E.subtree), dir: u8(E.dir), value: f32(E.value), inValue: f32(E.inValue),
      stack: i32(E.stack), op: E.op ? i32(E.op) : null,
      rowEntry: i32(raw.rows.entry), rowRole: u8(raw.rows.role), rowVerdict: u8(raw.rows.verdict),
      rowValue: f32(raw.rows.value), rowSuffix: indices(raw.rows.suffix, raw.rows.suffixWidth),
      columns: null, expanded: new Uint8Array(E.n), depth: new Uint16Array(E.n),
      suspectOf: new Map(), lower: null,
    };
    // Rows of each entry (counting sort keeps table order).
    p.rowStart = new Int32Array(p.n + 1);
    for (let r = 0; r < p.rowEntry.length; r++) p.rowStart[p.rowEntry[r] + 1]++;
    for (let e = 0; e < p.n; e++) p.rowStart[e + 1] += p.rowStart[e];
    p.rowList = new Int32Array(p.rowEntry.length);
    const fill = p.rowStart.slice(0, p.n);
    for (let r = 0; r < p.rowEntry.length; r++) p.rowList[fill[p.rowEntry[r]]++] = r;
    // Depths, top-down over the CSR.
    const todo = [];
    for (let k = p.childStart[p.n]; k < p.childStart[p.n + 1]; k++) todo.push(p.children[k]);
    while (todo.length) {
      const e = todo.pop();
      for (let k = p.childStart[e]; k < p.childStart[e + 1]; k++) {
        p.depth[p.children[k]] = p.depth[e] + 1;
        todo.push(p.children[k]);
      }
    }
    raw.suspects.forEach((s, k) => { if (!p.suspectOf.has(s.entry)) p.suspectOf.set(s.entry, k); });
    parts[i] = p;
    return p;
  }

  function columns(p) {
    if (p.columns) return p.columns;
    p.columns = p.raw.rows.columns.map((c) => {
      const col = { name: c.name, label: c.label || c.name, enc: c.enc, pct: !!c.pct };
      if (c.enc === 'f32') {
        col.values = f32(c.data);
        col.exc = new Map();
        const rows = u32(c.excRows), vals = u32(c.excValues);
        for (let k = 0; k < rows.length; k++) col.exc.set(rows[k], c.exc[vals[k]]);
      } else if (c.enc === 'dict') {
        col.dict = c.dict;
        col.idx = indices(c.data, c.w);
      } else {
        col.list = c.data;
      }
      return col;
    });
    return p.columns;
  }
  function rowName(p, r) {
    const s = p.raw.rows.suffixes[p.rowSuffix[r]];
    const e = p.names[p.rowEntry[r]];
    return s ? e + '.' + s : e;
  }
  function cellValue(p, col, r) {
    let v;
    if (col.enc === 'f32') {
      if (col.exc.has(r)) v = col.exc.get(r);
      else return col.pct ? fmt(col.values[r]) + '%' : col.values[r];
    } else {
      v = col.enc === 'dict' ? col.dict[col.idx[r]] : col.list[r];
    }
    if (typeof v === 'string' && v.charCodeAt(0) === 0) v = rowName(p, r) + v.slice(1);
    if (v === 'nan') return NaN;
    if (v === 'inf') return Infinity;
    if (v === '-inf') return -Infinity;
    return v;
  }

  // ---- header and summary ---------------------------------------------------------------------
  function verdictChip(v) { return '<span class="chip v-' + VERDICTS[v] + '"></span>'; }
  function renderHeader() {
    const runs = DATA.runs.map((r) => esc(r.label)).join(' vs ');
    $('meta').textContent = (DATA.kind === 'compare' ? 'compare (' + DATA.mode + ') · ' + runs
      : DATA.kind === 'check' ? DATA.mode : 'dump (' + DATA.mode + ')') + ' · ' + DATA.generated;
    if (DATA.parts.length > 1) {
      $('part-picker').hidden = false;
      const sel = $('part-select');
      DATA.parts.forEach((pt, i) => {
        const o = document.createElement('option');
        o.value = i;
        o.textContent = pt.label || ('part ' + i);
        sel.appendChild(o);
      });
      sel.addEventListener('change', () => selectPart(+sel.value));
    }
    let h = '<h2>Runs</h2><table><tr><th></th><th>framework</th><th>level</th><th>task</th><th>path</th></tr>';
    for (const r of DATA.runs)
      h += '<tr><td><b>' + esc(r.label) + '</b></td><td>' + esc(r.framework) + '</td><td>' + esc(r.level) +
        '</td><td>' + esc(r.task) + '</td><td class="path">' + esc(r.path) + '</td></tr>';
    h += '</table><div class="hint">' + DATA.parts.length + (DATA.parts.length === 1 ? ' part' : ' parts (steps × ranks)') + '</div>';
    $('runs').innerHTML = h;
    // Warnings about the data itself (an incomplete dump), above everything else.
    if (DATA.notes && DATA.notes.length) {
      $('notes').hidden = false;
      $('notes').innerHTML = DATA.notes.map((n) => '<div class="note">⚠ ' + esc(n) + '</div>').join('');
    }
  }
  function renderCounts() {
    const p = DATA.parts[state.part];
    const order = DATA.kind === 'dump' ? [4, 3, 1] : [4, 3, 1, 2];
    let h = '<h2>Counts' + (DATA.parts.length > 1 ? ' <span class="hint">(' + esc(p.label) + ' / all)</span>' : '') +
      '</h2><table id="counts-table"><tr><th></th><th class="num">entries</th><th class="num">rows</th></tr>';
    for (const v of order) {
      const k = VERDICTS[v];
      const both = (c) => DATA.parts.length > 1 ? c[k] + ' / ' : '';
      h += '<tr data-verdict="' + k + '"><td>' + verdictChip(v) + VERDICT_TEXT[v] + '</td><td class="num">' +
        both(p.counts.entries) + DATA.counts.entries[k] + '</td><td class="num">' + both(p.counts.rows) +
        DATA.counts.rows[k] + '</td></tr>';
    }
    h += '</table>';
    if (DATA.kind === 'dump') h += '<div class="hint">error: inf/nan in an output; warning: inf/nan in an input only</div>';
    $('counts').innerHTML = h;
  }
  function num(v) { return typeof v === 'number' ? fmt(v) : esc(v); }
  // A suspect's next step (compare's next_steps folder): the scoped re-dump configs, op_generate.
  function nextSteps(s) {
    const n = s.nextSteps || [];
    if (!n[0] && !n[2]) return '';
    const fw = (DATA.runs && DATA.runs[0] && DATA.runs[0].framework) || 'pytorch';
    const steps = [];
    if (n[0]) {
      steps.push('re-dump it in tensor mode: train the NPU run with <code>' + esc(n[0]) + '</code> and the bench run with <code>' +
        esc(n[1]) + '</code>, then <code>msprobe -f ' + esc(fw) + ' compare -i ' + esc(n[3]) + ' -o ' +
        esc(n[3].replace(/\/[^\/]*$/, '')) + '/compare</code>');
    }
    if (n[2]) {
      steps.push('reproduce it alone: <code>msprobe -f pytorch op_generate -i ' + esc(n[2]) + ' -o ' +
        esc(n[2].replace(/\/[^\/]*$/, '')) + '</code>');
    }
    return '<div class="hint next-steps">Next step: ' + steps.join('; ') + '</div>' +
      (n[2] ? '<div class="op-verdict" data-suspect="' + esc(s.name) + '"></div>' : '');
  }
  // op_generate's script leaves its verdict in op_verdict.js beside it (the suspect's next-steps
  // folder): shown under the suspect once it is there (reopen the report after running it).
  function loadOpVerdicts(box) {
    const shown = new Set();
    box.querySelectorAll('.op-verdict').forEach((div) => {
      const s = DATA.suspects.find((x) => x.name === div.dataset.suspect);
      const folder = s && s.nextSteps[2] ? s.nextSteps[2].replace(/\/[^\/]*$/, '') : '';
      if (!folder || shown.has(folder) || shown.size >= 10) return;
      shown.add(folder);
      const tag = document.createElement('script');
      tag.src = (location.protocol === 'file:' ? 'file://' : '') + folder + '/op_verdict.js';
      tag.onload = () => {
        const v = (window.MSPROBE_OP_VERDICTS || {})[s.name];
        if (v) div.innerHTML = '<b>op_generate: ' + esc(v.verdict) + '</b> (on ' + esc(v.device) + ', ' + esc(v.data) + ')';
      };
      tag.onerror = () => tag.remove();
      document.head.appendChild(tag);
    });
  }
  // "The API or its inputs?": the float64 replay of the suspect on each run's own inputs.
  function replayVerdict(s) {
    const r = s.replay || [];
    if (!r[1]) return '';
    return '<div class="replay">' + (r[0] ? '<b>Replay: ' + esc(r[0]) + '</b> &mdash; ' : 'Replay: ') + esc(r[1]) + '</div>';
  }
  function renderSuspects() {
    const box = $('suspects');
    if (DATA.kind !== 'compare') {
      box.innerHTML = DATA.kind === 'dump' ? '<h2>First inf/nan</h2>' + firstErrors('No inf or nan in any output.')
        : '<h2>Errors</h2>' + firstErrors('No API is in error.');
      wireLinks(box);
      return;
    }
    if (!DATA.suspects.length) {
      box.innerHTML = '<h2>Suspects</h2><p class="hint">No entry stands out: inputs and outputs agree within the run\'s own noise.</p>';
      return;
    }
    let h = '<h2>Suspects <span class="hint">(first divergence, best first)</span></h2><ol id="suspect-list">';
    DATA.suspects.forEach((s) => {
      const where = DATA.parts.length > 1 ? ' <span class="badge">' + esc(DATA.parts[s.part] ? DATA.parts[s.part].label : 'rank ' + s.rank) + '</span>' : '';
      h += '<li><a class="node-link" data-part="' + s.part + '" data-entry="' + s.entry + '">' + esc(s.name) + '</a>' +
        where + (s.source ? ' <span class="badge">source</span>' : '') + (s.tier === 0 ? ' <span class="badge">clear</span>' : s.tier === 2 ? ' <span class="badge">low</span>' : '') + '<br><span class="hint">' + esc(s.reason) +
        ' (input error ' + num(s.inputError) + ', output error ' + num(s.outputError) + ')</span>' + replayVerdict(s) + nextSteps(s) +
        (s.stack.length ? '<details><summary class="hint">stack</summary><pre class="stack">' + esc(s.stack.join('\n')) + '</pre></details>' : '') +
        '</li>';
    });
    box.innerHTML = h + '</ol>';
    wireLinks(box);
    loadOpVerdicts(box);
  }
  function firstErrors(none) {
    let h = '', shown = 0;
    for (let i = 0; i < DATA.parts.length && shown < 20; i++) {
      const p = part(i);
      for (let e = 0; e < p.withRows && shown < 20; e++) {
        if (p.verdict[e] !== 4) continue;
        h += '<li><a class="node-link" data-part="' + i + '" data-entry="' + e + '">' + esc(p.names[e]) + '</a>' +
          (DATA.parts.length > 1 ? ' <span class="badge">' + esc(p.raw.label) + '</span>' : '') + '</li>';
        shown++;
      }
    }
    return shown ? '<ol id="error-list">' + h + '</ol>' : '<p class="hint">' + none + '</p>';
  }
  function wireLinks(root) {
    root.querySelectorAll('a.node-link').forEach((a) => a.addEventListener('click', () => {
      const pi = +a.dataset.part, e = +a.dataset.entry;
      if (pi >= 0 && pi !== state.part) selectPart(pi);
      if (e >= 0) selectNode(e, true);
    }));
  }

  // ---- plot ---------------------------------------------------------------------------------
  let graph = null;
  let plotX = null;  // plot row -> entry
  function renderPlot() {
    const p = part(state.part);
    $('plot-title').textContent = 'Along execution order: ' + DATA.valueLabel + (DATA.parts.length > 1 ? ' (' + p.raw.label + ')' : '');
    let lo = Infinity, hi = 0;
    for (let e = 0; e < p.withRows; e++) {
      const v = p.value[e];
      if (v > 0 && Number.isFinite(v)) { if (v < lo) lo = v; if (v > hi) hi = v; }
    }
    if (!Number.isFinite(lo)) { lo = 1e-8; hi = 1; }
    const floor = lo / 10, top = hi * 10;
    const rows = [];
    plotX = [];
    const isCompare = DATA.kind === 'compare';
    const bad = [];
    for (let e = 0; e < p.withRows; e++) {
      const v = p.value[e];
      if (Number.isNaN(v)) continue;
      // inf/nan spike to the top of the plot and get a red mark there.
      const y = Number.isFinite(v) ? Math.max(v, floor) : top;
      if (!Number.isFinite(v)) bad.push(e);
      rows.push([e, p.dir[e] === 1 ? y : null, p.dir[e] === 1 ? null : y]);
      plotX.push(e);
    }
    state.plotPoints = rows.length;
    const el = $('plot');
    if (graph) { graph.destroy(); graph = null; }
    el.innerHTML = '';
    if (!rows.length) { el.innerHTML = '<p class="hint">Nothing to plot.</p>'; return; }
    const suspects = isCompare ? p.raw.suspects.slice(0, 10) : [];
    graph = new Dygraph(el, rows, {
      labels: ['order', 'forward', 'backward'],
      colors: ['#2e6fd8', '#e07b00'],
      // Points are drawn one by one: large runs get lines only (a hover still marks the point);
      // the range selector would draw every series a second time.
      // run_ut's APIs are independent of each other: points without lines.
      logscale: true, drawPoints: rows.length <= 5000 || DATA.kind === 'check',
      pointSize: DATA.kind === 'check' ? 2.5 : 1.5, strokeWidth: DATA.kind === 'check' ? 0 : 0.8,
      labelsDiv: $('plot-legend'), legend: 'always', xlabel: 'entry (dump order)',
      ylabel: DATA.kind === 'dump' ? '|value|' : 'error', showRangeSelector: rows.length > 50 && rows.length <= 20000,
      rangeSelectorHeight: 30,
      axes: { y: { valueFormatter: (v) => fmt(v), axisLabelFormatter: axisLabel, axisLabelWidth: 44 },
              x: { axisLabelFormatter: (v) => String(Math.round(v)) } },
      legendFormatter: legendText,
      underlayCallback: (ctx, area, g) => {
        ctx.fillStyle = '#d92d20';
        for (const e of bad) ctx.fillRect(g.toDomXCoord(e) - 1, area.y, 3, 8);
        ctx.strokeStyle = '#d92d20';
        ctx.setLineDash([4, 3]);
        for (const s of suspects) {
          const x = g.toDomXCoord(s.entry);
          ctx.beginPath(); ctx.moveTo(x, area.y); ctx.lineTo(x, area.y + area.h); ctx.stroke();
        }
        ctx.setLineDash([]);
      },
      drawCallback: (g) => { state.xRange = g.xAxisRange(); },
      pointClickCallback: (ev, pt) => selectNode(pt.xval, true),
      clickCallback: (ev, x) => selectNode(Math.round(x), true),
    });
    if (suspects.length) {
      graph.ready(() => graph.setAnnotations(suspects.map((s, k) => ({
        series: p.dir[s.entry] === 1 ? 'forward' : 'backward', x: s.entry, shortText: String(k + 1),
        text: s.name, width: 16, height: 14, cssClass: 'suspect-flag',
        clickHandler: () => selectNode(s.entry, true) }))));
    }
  }
  function axisLabel(v) {
    const a = Math.abs(v);
    if (a === 0) return '0';
    return a < 1e-3 || a >= 1e4 ? v.toExponential(0).replace('e+', 'e') : String(Number(v.toPrecision(2)));
  }
  function legendText(d) {
    const p = part(state.part);
    if (d.x === null || d.x === undefined) return 'hover a point: entry name and its numbers';
    const e = Math.round(d.x);
    if (e < 0 || e >= p.n) return '';
    return '<b>' + esc(p.names[e]) + '</b> · ' + verdictChip(p.verdict[e]) + VERDICT_TEXT[p.verdict[e]] +
      ' · ' + (p.dir[e] ? 'forward' : 'backward') + ' · output ' + fmt(p.value[e]) +
      (Number.isNaN(p.inValue[e]) ? '' : ' · input ' + fmt(p.inValue[e])) +
      (p.suspectOf.has(e) ? ' · <b>suspect #' + (p.suspectOf.get(e) + 1) + '</b>' : '');
  }

  // ---- heat map of several parts ------------------------------------------------------------
  function renderHeat() {
    if (DATA.parts.length < 2 || !DATA.ops) return;
    $('heat-section').hidden = false;
    const canvas = $('heatmap');
    const W = Math.max(100, Math.min(canvas.clientWidth || 800, 2000)), P = DATA.parts.length, nOps = DATA.ops.n;
    const cellH = 14;
    canvas.width = W;
    canvas.height = P * cellH;
    canvas.style.height = P * cellH + 'px';
    $('heat-labels').innerHTML = DATA.parts.map((pt) => esc(pt.label)).join('<br>');
    const grid = new Float32Array(P * W).fill(NaN);
    let lo = Infinity, hi = 0;
    for (let i = 0; i < P; i++) {
      const p = part(i);
      for (let e = 0; e < p.withRows; e++) {
        const v = p.value[e], o = p.op[e];
        if (o < 0 || Number.isNaN(v)) continue;
        const x = Math.floor(o * W / nOps), k = i * W + x;
        if (Number.isNaN(grid[k]) || v > grid[k]) grid[k] = v;
        if (v > 0 && Number.isFinite(v)) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
      }
    }
    if (!Number.isFinite(lo)) { lo = 1e-8; hi = 1; }
    const llo = Math.log10(lo), span = Math.max(Math.log10(hi) - llo, 1e-9);
    const ctx = canvas.getContext('2d');
    const img = ctx.createImageData(W, P * cellH);
    for (let i = 0; i < P; i++) for (let x = 0; x < W; x++) {
      const v = grid[i * W + x];
      let c;
      if (Number.isNaN(v)) c = [240, 241, 244];
      else if (!Number.isFinite(v)) c = [122, 9, 22];
      else {
        const t = v > 0 ? Math.min(1, Math.max(0, (Math.log10(v) - llo) / span)) : 0;
        c = t < 0.5 ? [255, 255 - 40 * t * 2, 255 - 210 * t * 2] : [255, 215 - 140 * (t - 0.5) * 2, 45 - 30 * (t - 0.5) * 2];
      }
      for (let y = 0; y < cellH - 1; y++) {
        const o = ((i * cellH + y) * W + x) * 4;
        img.data[o] = c[0]; img.data[o + 1] = c[1]; img.data[o + 2] = c[2]; img.data[o + 3] = 255;
      }
    }
    ctx.putImageData(img, 0, 0);
    const opPart = i32(DATA.ops.part), opEntry = i32(DATA.ops.entry);
    const at = (ev) => {
      const r = canvas.getBoundingClientRect();
      const x = Math.floor((ev.clientX - r.left) * W / r.width), i = Math.floor((ev.clientY - r.top) * P / r.height);
      const o = Math.min(nOps - 1, Math.max(0, Math.floor(x * nOps / W)));
      return { i: Math.min(P - 1, Math.max(0, i)), o, v: grid[Math.min(P - 1, Math.max(0, i)) * W + x] };
    };
    canvas.addEventListener('mousemove', (ev) => {
      const h = at(ev);
      $('heat-tip').textContent = DATA.parts[h.i].label + ' · ' + part(opPart[h.o]).names[opEntry[h.o]] + ' · worst ' + fmt(h.v);
    });
    canvas.addEventListener('click', (ev) => {
      const h = at(ev);
      selectPart(h.i);
      const p = part(h.i);
      for (let e = 0; e < p.withRows; e++) if (p.op[e] === h.o) { selectNode(e, true); break; }
    });
  }

  // ---- tree (virtual list of the expanded nodes) --------------------------------------------
  let visible = new Int32Array(0);
  let search = { q: '', list: [], set: null, at: -1 };
  function rebuildVisible() {
    const p = part(state.part);
    const out = [];
    const stack = [];
    for (let k = p.childStart[p.n + 1] - 1; k >= p.childStart[p.n]; k--) stack.push(p.children[k]);
    while (stack.length) {
      const e = stack.pop();
      out.push(e);
      if (p.expanded[e]) for (let k = p.childStart[e + 1] - 1; k >= p.childStart[e]; k--) stack.push(p.children[k]);
    }
    visible = Int32Array.from(out);
    state.visibleRows = visible.length;
    $('tree-spacer').style.height = visible.length * ROW_H + 'px';
    drawRows();
  }
  const rowPool = [];
  function drawRows() {
    const p = part(state.part);
    const tree = $('tree'), spacer = $('tree-spacer');
    const first = Math.max(0, Math.floor(tree.scrollTop / ROW_H) - 5);
    const count = Math.min(visible.length - first, Math.ceil((tree.clientHeight || 600) / ROW_H) + 10);
    while (rowPool.length < count) {
      const d = document.createElement('div');
      d.className = 'row';
      d.addEventListener('click', onRowClick);
      spacer.appendChild(d);
      rowPool.push(d);
    }
    for (let k = 0; k < rowPool.length; k++) {
      const d = rowPool[k];
      if (k >= count) { d.style.display = 'none'; continue; }
      const e = visible[first + k];
      d.style.display = '';
      d.style.top = (first + k) * ROW_H + 'px';
      d.dataset.entry = e;
      const hasKids = p.childStart[e + 1] > p.childStart[e];
      const open = p.expanded[e];
      let cls = 'row';
      if (e === state.selected) cls += ' selected';
      if (search.set && search.set.has(e)) cls += ' match';
      d.className = cls;
      const worse = hasKids && !open && p.subtree[e] > p.verdict[e] && p.subtree[e] >= 3;
      d.style.paddingLeft = p.depth[e] * 14 + 'px';
      d.innerHTML = '<span class="toggle">' + (hasKids ? (open ? '&#9662;' : '&#9656;') : '') + '</span>' +
        verdictChip(p.verdict[e]) + '<span class="name">' + esc(p.names[e]) + '</span>' +
        (p.dir[e] ? '' : '<span class="dir-b">bwd</span>') +
        (p.suspectOf.has(e) ? '<span class="badge">suspect #' + (p.suspectOf.get(e) + 1) + '</span>' : '') +
        (worse ? '<span class="contains">' + verdictChip(p.subtree[e]) + 'inside</span>' : '') +
        (Number.isNaN(p.value[e]) ? '' : '<span class="val">' + fmt(p.value[e]) + '</span>');
    }
  }
  function onRowClick(ev) {
    const e = +ev.currentTarget.dataset.entry;
    const p = part(state.part);
    if (ev.target.classList.contains('toggle') || ev.detail === 2) {
      p.expanded[e] = p.expanded[e] ? 0 : 1;
      rebuildVisible();
    }
    selectNode(e, false);
  }
  function expandTo(e) {
    const p = part(state.part);
    for (let a = p.parent[e]; a >= 0; a = p.parent[a]) p.expanded[a] = 1;
  }
  function scrollToEntry(e) {
    const idx = visible.indexOf(e);
    if (idx < 0) return;
    const tree = $('tree');
    const y = idx * ROW_H;
    if (y < tree.scrollTop || y > tree.scrollTop + tree.clientHeight - ROW_H) tree.scrollTop = Math.max(0, y - tree.clientHeight / 3);
    drawRows();
  }
  function selectNode(e, reveal) {
    const p = part(state.part);
    if (!(e >= 0 && e < p.n)) return;
    state.selected = e;
    if (reveal) { expandTo(e); rebuildVisible(); scrollToEntry(e); } else drawRows();
    renderDetails(e);
    if (graph && plotX) {
      const k = lowerBound(plotX, e);
      if (plotX[k] === e) graph.setSelection(k);
    }
    history.replaceState(null, '', '#' + (DATA.parts.length > 1 ? 'part=' + state.part + '&' : '') + 'node=' + encodeURIComponent(p.names[e]));
  }
  function lowerBound(a, v) {
    let lo = 0, hi = a.length;
    while (lo < hi) { const m = (lo + hi) >> 1; if (a[m] < v) lo = m + 1; else hi = m; }
    return lo;
  }
  function setAll(open) {
    const p = part(state.part);
    p.expanded.fill(0);
    if (open) for (let e = 0; e < p.n; e++) if (p.childStart[e + 1] > p.childStart[e]) p.expanded[e] = 1;
    rebuildVisible();
  }

  // ---- search -------------------------------------------------------------------------------
  function runSearch(q) {
    const p = part(state.part);
    q = q.trim().toLowerCase();
    search = { q, list: [], set: null, at: -1 };
    if (q) {
      if (!p.lower) p.lower = p.names.map((s) => s.toLowerCase());
      for (let e = 0; e < p.n; e++) if (p.lower[e].includes(q)) search.list.push(e);
      search.set = new Set(search.list);
      const limit = Math.min(search.list.length, 2000);  // reveal the first matches
      for (let k = 0; k < limit; k++) expandTo(search.list[k]);
    }
    state.matches = search.list.length;
    $('search-count').textContent = q ? search.list.length + ' match' + (search.list.length === 1 ? '' : 'es') : '';
    rebuildVisible();
    if (search.list.length) step(1);
  }
  function step(dir) {
    if (!search.list.length) return;
    search.at = (search.at + dir + search.list.length) % search.list.length;
    $('search-count').textContent = (search.at + 1) + ' of ' + search.list.length;
    selectNode(search.list[search.at], true);
  }

  // ---- details --------------------------------------------------------------------------------
  function renderDetails(e) {
    const p = part(state.part);
    const box = $('details');
    const path = [];
    for (let a = p.parent[e]; a >= 0; a = p.parent[a]) path.unshift(a);
    let h = '<h3>' + verdictChip(p.verdict[e]) + esc(p.names[e]) + '</h3><div class="hint">' + VERDICT_TEXT[p.verdict[e]] +
      ' · ' + (p.dir[e] ? 'forward' : 'backward') + (DATA.parts.length > 1 ? ' · ' + esc(p.raw.label) : '') +
      (Number.isNaN(p.value[e]) ? '' : ' · output ' + fmt(p.value[e])) + (Number.isNaN(p.inValue[e]) ? '' : ' · input ' + fmt(p.inValue[e])) + '</div>';
    if (path.length) h += '<div class="path">in ' + path.map((a) => '<a class="node-link" data-part="' + state.part + '" data-entry="' + a + '">' + esc(p.names[a]) + '</a>').join(' › ') + '</div>';
    if (p.suspectOf.has(e)) {
      const s = p.raw.suspects[p.suspectOf.get(e)];
      h += '<div class="sus"><b>Suspect #' + (p.suspectOf.get(e) + 1) + '</b>: ' + esc(s.reason) + '<br><span class="hint">input error ' + num(s.inputError) +
        ', output error ' + num(s.outputError) + ', amplification ' + num(s.amplification) + '</span>' + replayVerdict(s) + nextSteps(s) + '</div>';
    }
    const rows = Array.from(p.rowList.subarray(p.rowStart[e], p.rowStart[e + 1]));
    if (rows.length) {
      const ins = rows.filter((r) => p.rowRole[r] === 0), outs = rows.filter((r) => p.rowRole[r] === 1);
      if (ins.length) h += '<h2>Inputs</h2>' + ioTable(p, ins);
      if (outs.length) h += '<h2>Outputs</h2>' + ioTable(p, outs);
    } else {
      // A group without rows of its own (a module of construct.json without data, an API of a
      // run_ut report): the rows of its children, each under its name.
      let shown = 0;
      for (let k = p.childStart[e]; k < p.childStart[e + 1] && shown < 20; k++) {
        const c = p.children[k];
        const cr = Array.from(p.rowList.subarray(p.rowStart[c], p.rowStart[c + 1]));
        if (!cr.length) continue;
        h += '<h2>' + verdictChip(p.verdict[c]) + '<a class="node-link" data-part="' + state.part + '" data-entry="' + c + '">' +
          esc(p.names[c]) + '</a></h2>' + ioTable(p, cr);
        shown++;
      }
      if (!shown) h += '<p class="hint">No rows of its own in the table.</p>';
    }
    const kids = p.childStart[e + 1] - p.childStart[e];
    if (kids) h += '<div class="hint">' + kids + ' children</div>';
    if (p.stack[e] >= 0) {
      const st = p.raw.stacks.stacks[p.stack[e]].map((i) => p.raw.stacks.lines[i]);
      h += '<h2>Stack</h2><pre class="stack">' + esc(st.join('\n')) + '</pre>';
    }
    box.innerHTML = h;
    wireLinks(box);
  }
  // Columns "NPU x" and "Bench x" are shown as one column holding both runs, one above the other.
  function ioTable(p, rows) {
    const cols = columns(p);
    const groups = [];
    const used = new Set();
    const key = (n) => n.toLowerCase().replace(/^(npu|bench) /, '');
    cols.forEach((c, i) => {
      if (used.has(i)) return;
      const lc = c.name.toLowerCase();
      if (lc.startsWith('npu ')) {
        const j = cols.findIndex((d, k) => !used.has(k) && d.name.toLowerCase().startsWith('bench ') && key(d.name) === key(c.name));
        if (j >= 0) { used.add(j); groups.push({ title: c.label.slice(4), name: c.name, a: i, b: j }); used.add(i); return; }
      }
      if (lc === 'bench name') { groups.push({ title: 'Bench Name', a: i, benchName: true }); used.add(i); return; }
      groups.push({ title: c.label, name: c.name, a: i });
      used.add(i);
    });
    groups.sort((x, y) => (x.b === undefined) - (y.b === undefined));  // both runs' columns first
    const paired = groups.some((g) => g.b !== undefined);
    let h = '<table class="io"><tr><th>' + (paired ? 'name' : 'name') + '</th>';
    for (const g of groups) if (!g.benchName) h += '<th title="' + esc(g.name) + '">' + esc(g.title) + '</th>';
    h += '</tr>';
    for (const r of rows) {
      const name = rowName(p, r);
      const suffix = p.raw.rows.suffixes[p.rowSuffix[r]] || name;
      let benchNote = '';
      for (const g of groups) if (g.benchName) {
        const b = cellValue(p, cols[g.a], r);
        if (b !== name) benchNote = '<br><span class="side-b">' + esc(fmt(b)) + '</span>';
      }
      h += '<tr><td>' + verdictChip(p.rowVerdict[r]) + esc(suffix) + (paired ? ' <span class="hint">' + esc(DATA.runs[0].label) + '</span><br><span class="side-b">' + esc(DATA.runs[1] ? DATA.runs[1].label : 'bench') + '</span>' : '') + benchNote + '</td>';
      for (const g of groups) {
        if (g.benchName) continue;
        const a = cellValue(p, cols[g.a], r);
        if (g.b === undefined) { h += '<td class="num">' + esc(fmt(a)) + '</td>'; continue; }
        h += '<td class="num">' + esc(fmt(a)) + '<br><span class="side-b">' + esc(fmt(cellValue(p, cols[g.b], r))) + '</span></td>';
      }
      h += '</tr>';
    }
    return h + '</table>';
  }

  // ---- parts and start-up -------------------------------------------------------------------
  function selectPart(i) {
    if (i === state.part && graph) return;
    state.part = i;
    state.selected = -1;
    $('part-select').value = i;
    search = { q: '', list: [], set: null, at: -1 };
    renderCounts();
    renderPlot();
    mark('plot');
    $('tree').scrollTop = 0;
    rebuildVisible();
    if ($('search').value) runSearch($('search').value);
    $('details').innerHTML = '<p class="hint">Select a node in the tree or a point in the plot.</p>';
  }
  function legendVerdicts() {
    const order = DATA.kind === 'compare' ? [1, 3, 4, 2, 0] : DATA.kind === 'check' ? [1, 3, 4, 2] : [1, 3, 4, 0];
    $('legend-verdicts').innerHTML = order.map((v) => '<span>' + verdictChip(v) + VERDICT_TEXT[v] + '</span>').join('');
  }
  function applyHash() {
    const h = new URLSearchParams(location.hash.slice(1));
    if (h.has('part')) { const i = +h.get('part'); if (i >= 0 && i < DATA.parts.length) selectPart(i); }
    if (h.has('q')) { $('search').value = h.get('q'); runSearch(h.get('q')); }
    if (h.has('node')) {
      const p = part(state.part), name = h.get('node');
      const e = p.names.indexOf(name);
      if (e >= 0) { if (h.has('open')) p.expanded[e] = 1; selectNode(e, true); }
    }
  }
  function start() {
    renderHeader();
    legendVerdicts();
    renderSuspects();
    state.part = -1;
    part(0);
    mark('decoded');
    selectPart(0);
    mark('drawn');
    renderHeat();
    let timer = 0;
    $('search').addEventListener('input', (ev) => { clearTimeout(timer); timer = setTimeout(() => runSearch(ev.target.value), 120); });
    $('search').addEventListener('keydown', (ev) => {
      if (ev.key !== 'Enter') return;
      clearTimeout(timer);
      if (search.q !== ev.target.value.trim().toLowerCase()) runSearch(ev.target.value); else step(ev.shiftKey ? -1 : 1);
    });
    $('search-next').addEventListener('click', () => step(1));
    $('search-prev').addEventListener('click', () => step(-1));
    $('expand-all').addEventListener('click', () => setAll(true));
    $('collapse-all').addEventListener('click', () => setAll(false));
    let pending = false;
    $('tree').addEventListener('scroll', () => { if (!pending) { pending = true; requestAnimationFrame(() => { pending = false; drawRows(); }); } });
    window.addEventListener('resize', () => { if (graph) graph.resize(); });
    applyHash();
    state.readyMs = Math.round(performance.now());
    state.ready = true;
    document.body.dataset.readyMs = state.readyMs;
    document.body.dataset.ready = '1';
  }
  try { start(); } catch (err) { showError('Error: ' + (err && err.stack || err)); }
})();
