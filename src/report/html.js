/*
 * qostrace report --html: the timeline, drawn from the two JSON blocks of
 * the page (src/report/html.h describes qt-data), and the page around it;
 * the tables under it are html_tables.js's, the Diagnosis html_diagnosis.js's,
 * the progress graph and the data-flow path html_progress.js's and
 * html_dataflow.js's.
 * Hand-written, no library, no network. Embedded into the C program by
 * scripts/gen-html-assets.sh.
 *
 * Scale: a lane's runs are decoded once into typed arrays with a prefix sum
 * of busy time. A frame draws, per visible lane, either the exact intervals
 * of the window (when there are fewer than pixels) or the busy fraction of
 * each pixel column from two binary searches: O(pixels log n), whatever the
 * number of events.
 */
(function () {
'use strict';

const T_START = performance.now();
const $ = (id) => document.getElementById(id);
const timing = {};

let t = performance.now();
const REPORT = JSON.parse($('qt-report').textContent);
const D = JSON.parse($('qt-data').textContent);
timing.parse_ms = performance.now() - t;

/* ---- formatting ---- */

function fmtDur(ns) {
	const a = Math.abs(ns);
	if (a >= 1e9) return (ns / 1e9).toFixed(a >= 1e10 ? 2 : 3) + ' s';
	if (a >= 1e6) return (ns / 1e6).toFixed(a >= 1e7 ? 2 : 3) + ' ms';
	if (a >= 1e3) return (ns / 1e3).toFixed(a >= 1e4 ? 2 : 3) + ' µs';
	return Math.round(ns) + ' ns';
}

/* A time of the recording, relative to its start, at a given resolution. */
function fmtAt(ns, step) {
	const units = [[1e9, 's'], [1e6, 'ms'], [1e3, 'µs'], [1, 'ns']];
	for (const [u, name] of units) {
		if (step >= u || u === 1) {
			const dec = Math.max(0, Math.min(6, Math.ceil(-Math.log10(step / u) - 1e-9)));
			return (ns / u).toFixed(dec) + ' ' + name;
		}
	}
	return ns + ' ns';
}

/* A precise time of the recording for tooltips: ms with ns digits. */
function fmtMs(ns) {
	return (ns / 1e6).toFixed(6) + ' ms';
}

function fmtPct(x) {
	return (100 * x).toFixed(x >= 0.1 ? 0 : 1) + '%';
}

function absNs(rel) {
	try {
		return (BigInt(D.t0) + BigInt(Math.round(rel))).toString();
	} catch (e) {
		return String(rel);
	}
}

function el(tag, attrs, ...kids) {
	const e = document.createElement(tag);
	for (const k in attrs || {}) {
		if (k === 'class') e.className = attrs[k];
		else if (k === 'title') e.title = attrs[k];
		else if (k.startsWith('on')) e.addEventListener(k.slice(2), attrs[k]);
		else e.setAttribute(k, attrs[k]);
	}
	for (const c of kids) {
		if (c === null || c === undefined) continue;
		e.append(c instanceof Node ? c : document.createTextNode(String(c)));
	}
	return e;
}

/* ---- binary searches over sorted typed arrays ---- */

/* First index with a[i] >= x (a non-decreasing). */
function lowerBound(a, x, lo, hi) {
	lo = lo || 0;
	hi = hi === undefined ? a.length : hi;
	while (lo < hi) {
		const m = (lo + hi) >>> 1;
		if (a[m] < x) lo = m + 1; else hi = m;
	}
	return lo;
}

/* First index with a[i] > x. */
function upperBound(a, x, lo, hi) {
	lo = lo || 0;
	hi = hi === undefined ? a.length : hi;
	while (lo < hi) {
		const m = (lo + hi) >>> 1;
		if (a[m] <= x) lo = m + 1; else hi = m;
	}
	return lo;
}

/* ---- the data, decoded ---- */

t = performance.now();
const STATE_COLOR = {
	preempted: '#e8912d', sleep: '#3d7fc4', blocked: '#8d5fc9', other: '#8a939c',
	exited: '#6b737b', running: '#4e9a5a', unknown: '#b4bbc2', task: '#3d7fc4',
};
const STATE_TEXT = {
	preempted: 'then preempted (still runnable)', sleep: 'then slept (waits for an event)',
	blocked: 'then blocked (I/O or a lock)', other: 'then stopped', exited: 'then exited',
	running: 'still running when the recording stopped', unknown: 'its end was lost', task: '',
};
const stateColor = (D.states || []).map((s) => STATE_COLOR[s] || '#8a939c');
const lanes = D.lanes || [];
const actors = D.actors || [];
const gaps = [];
let nRuns = 0, nBreaks = 0, nJitter = 0;

for (const L of lanes) {
	const r = L.runs || [], n = (r.length / 3) | 0;
	const s = new Float64Array(n), e = new Float64Array(n), code = new Uint32Array(n);
	const cum = new Float64Array(n + 1);
	let end = 0, busy = 0;
	for (let i = 0, j = 0; i < n; i++, j += 3) {
		const st = end + r[j], en = st + r[j + 1];
		s[i] = st; e[i] = en; code[i] = r[j + 2];
		cum[i] = busy;
		busy += en - st;
		end = en;
	}
	cum[n] = busy;
	L.s = s; L.e = e; L.code = code; L.cum = cum; L.n = n;
	L.runs = null;
	L.actors = [];
	L.crit = null;
	nRuns += n;
}
for (let i = 0; i + 4 < (D.gaps || []).length; i += 5)
	gaps.push({ cpu: D.gaps[i], s: D.gaps[i + 1], e: D.gaps[i + 2], kind: D.gaps[i + 3], lost: D.gaps[i + 4] });
actors.forEach((A, k) => {
	const v = A.inv || [], n = (v.length / 2) | 0;
	A.is = new Float64Array(n);
	A.ie = new Float64Array(n);
	let end = 0;
	for (let i = 0; i < n; i++) {
		A.is[i] = end + v[2 * i];
		A.ie[i] = A.is[i] + v[2 * i + 1];
		end = Math.max(A.ie[i], A.is[i]);
	}
	A.inv = null;
	A.ninv = n;
	A.br = [];
	const b = A.breaks || [];
	/*
	 * before, late, start, end, lateness, data missing, completion (started
	 * on time, finished late), major (late by the cut, --min-late, or more;
	 * else jitter: drawn faint, counted apart)
	 */
	for (let i = 0; i + 8 <= b.length; i += 8)
		A.br.push({ before: b[i], late: b[i + 1], s: b[i + 2], e: b[i + 3], lateness: b[i + 4], missing: !!b[i + 5],
			    completion: !!b[i + 6], major: !!b[i + 7] });
	A.lateSet = new Set(A.br.map((x) => x.late));
	A.index = k;
	A.nmajor = A.br.filter((x) => x.major && !x.missing).length;
	A.jitter = A.br.filter((x) => !x.major && !x.missing);
	nBreaks += A.br.length - A.jitter.length;
	nJitter += A.jitter.length;
	if (A.lane >= 0 && lanes[A.lane]) lanes[A.lane].actors.push(A);
});
const upstream = D.upstream >= 0 ? actors[D.upstream] : null;
/*
 * Critical paths: segments [lane, start, end, kind, holder lane, category].
 * Per lane, the RUN stretches of all paths (outlined red) and the WAIT ones
 * (a dashed red line: the path waited there for the CPU).
 */
const SEG_RUN = 0, SEG_WAIT = 1;
const paths = [];
let nCrit = 0;
if (D.critical && D.critical.paths) {
	const runs = new Map(), waits = new Map();
	const push = (m, li, x) => { if (!m.has(li)) m.set(li, []); m.get(li).push(x); };
	D.critical.paths.forEach((P, pi) => {
		const g = P.seg || [], segs = [];
		for (let i = 0; i + 6 <= g.length; i += 6) {
			const sg = { lane: g[i], s: g[i + 1], e: g[i + 2], kind: g[i + 3], holder: g[i + 4], cat: g[i + 5], path: pi };
			segs.push(sg);
			if (sg.lane < 0 || !lanes[sg.lane]) continue;
			if (sg.kind === SEG_RUN) push(runs, sg.lane, sg);
			else if (sg.kind === SEG_WAIT) push(waits, sg.lane, sg);
		}
		segs.sort((a, b) => a.s - b.s);
		paths.push({ name: P.name, actor: P.actor, brk: P.brk, lateness: P.lateness, links: P.links !== false,
			segs, ss: Float64Array.from(segs.map((x) => x.s)) });
	});
	const pack = (v) => {
		v.sort((a, b) => a.s - b.s || a.e - b.e);
		/* merged where they overlap (several paths share stretches), so ends increase too */
		const out = [];
		for (const x of v) {
			const last = out[out.length - 1];
			if (last && x.s <= last.e) { if (x.e > last.e) last.e = x.e; last.paths.add(x.path); }
			else out.push({ s: x.s, e: x.e, holder: x.holder, cat: x.cat, paths: new Set([x.path]) });
		}
		return { v: out, s: Float64Array.from(out.map((x) => x.s)), e: Float64Array.from(out.map((x) => x.e)) };
	};
	for (const [li, v] of runs) { lanes[li].crit = pack(v); nCrit += lanes[li].crit.v.length; }
	for (const [li, v] of waits) lanes[li].critWait = pack(v);
}
timing.decode_ms = performance.now() - t;

/* ---- layout ---- */

/* Few lanes (a Gantt chart, a small program) get room; many stay compact. */
const ROOMY = lanes.length <= 12;
const LABEL_W = 200, AXIS_H = 30, LANE_H = ROOMY ? 26 : 18, ACTOR_LANE_H = 34, LANE_GAP = 3;
let laneY = [], totalH = 0;
function layout() {
	laneY = [];
	let y = 0;
	for (const L of lanes) {
		L.h = L.actors.length ? ACTOR_LANE_H : LANE_H;
		L.y = y;
		laneY.push(y);
		y += L.h + LANE_GAP;
	}
	totalH = y;
}
layout();

const canvas = $('tl'), ctx = canvas.getContext('2d');
const scroller = $('tl-scroll'), spacer = $('tl-spacer'), tip = $('tip');
let W = 800, H = 300, PW = 600, dpr = 1;
const MIN_SPAN = 1000;	/* 1 µs */
const DUR = Math.max(D.dur || 0, 1);
let v0 = 0, v1 = DUR;

function resize() {
	dpr = window.devicePixelRatio || 1;
	W = Math.max(400, scroller.clientWidth || 800);
	const want = AXIS_H + totalH + 6;
	H = Math.max(140, Math.min(want, Math.round(window.innerHeight * 0.66)));
	scroller.style.height = H + 'px';
	spacer.style.height = want + 'px';
	canvas.style.width = W + 'px';
	canvas.style.height = H + 'px';
	canvas.width = Math.round(W * dpr);
	canvas.height = Math.round(H * dpr);
	PW = W - LABEL_W;
}

const X = (ns) => LABEL_W + (ns - v0) / (v1 - v0) * PW;
const T = (x) => v0 + (x - LABEL_W) / PW * (v1 - v0);

/* Busy time of lane L in [0, t): a prefix sum and one binary search. */
function busyBefore(L, t) {
	const i = upperBound(L.s, t) - 1;
	if (i < 0) return 0;
	return L.cum[i] + Math.min(Math.max(t - L.s[i], 0), L.e[i] - L.s[i]);
}

/* Hatch for missing data. */
const hatch = (function () {
	const c = document.createElement('canvas');
	c.width = c.height = 8;
	const g = c.getContext('2d');
	g.strokeStyle = 'rgba(90, 100, 110, 0.35)';
	g.lineWidth = 1.5;
	g.beginPath();
	g.moveTo(0, 8); g.lineTo(8, 0);
	g.stroke();
	return ctx.createPattern(c, 'repeat');
})();

/* ---- drawing ---- */

let stats = {};
const ALPHA_LEVELS = 8;

function drawLane(L, y, li) {
	const h = L.h, top = y + (L.actors.length ? 8 : 1), bh = h - (L.actors.length ? 9 : 2);
	if (li % 2 === 0) {
		ctx.fillStyle = '#f7f9fb';
		ctx.fillRect(LABEL_W, y - 1, PW, h + LANE_GAP - 1);
	}
	/* breaks behind everything of the lane; labels where they do not collide */
	let labelEnd = -Infinity;
	for (const A of L.actors) {
		for (const b of A.br) {
			if (b.e < v0 || b.s > v1) continue;
			const x0 = Math.max(LABEL_W, X(b.s)), x1 = Math.min(W, X(b.e));
			if (!b.major && !b.missing) {
				/* jitter: a faint tint, no mark, no label: it is no break to act on */
				ctx.fillStyle = 'rgba(230, 150, 20, 0.14)';
				ctx.fillRect(x0, y, Math.max(1, x1 - x0), h);
				stats.jitter++;
				continue;
			}
			ctx.fillStyle = b.missing ? 'rgba(120, 120, 120, 0.18)' : 'rgba(220, 45, 45, 0.20)';
			ctx.fillRect(x0, y, Math.max(2, x1 - x0), h);
			ctx.fillStyle = b.missing ? '#888' : '#c62828';
			ctx.fillRect(Math.min(W - 2, X(b.e)) - 1, y, 2, h);
			if (x1 - x0 > 90) {
				const text = '+' + fmtDur(b.lateness) + ' late';
				ctx.font = '10px system-ui, sans-serif';
				const tw = ctx.measureText(text).width;
				if (x1 - 5 - tw > Math.max(x0, labelEnd) + 4) {
					/* above the middle of the lane, where a critical wait draws its dashes */
					ctx.fillText(text, x1 - 5 - tw, y + Math.min(16, h - 2));
					labelEnd = x1 - 5;
				}
			}
			stats.breaks++;
		}
	}
	/* run intervals */
	const i0 = upperBound(L.e, v0), i1 = lowerBound(L.s, v1);
	const count = Math.max(0, i1 - i0);
	const exact = count <= PW;
	if (exact) {
		for (let i = i0; i < i1; i++) {
			const x0 = Math.max(LABEL_W, X(L.s[i])), x1 = Math.min(W, X(L.e[i]));
			ctx.fillStyle = stateColor[L.code[i] & 7] || '#8a939c';
			ctx.fillRect(x0, top, Math.max(0.8, x1 - x0), bh);
		}
		stats.runs += count;
		stats.exactLanes++;
	} else {
		/* per-pixel busy fraction, batched into a few alpha levels */
		const pxw = (v1 - v0) / PW;
		const paths = [];
		for (let k = 0; k < ALPHA_LEVELS; k++) paths.push(new Path2D());
		let prev = busyBefore(L, v0), n = 0;
		for (let px = 0; px < PW; px++) {
			const b = busyBefore(L, v0 + (px + 1) * pxw);
			const frac = (b - prev) / pxw;
			prev = b;
			if (frac <= 0) continue;
			const k = Math.min(ALPHA_LEVELS - 1, Math.floor(Math.min(frac, 1) * ALPHA_LEVELS));
			paths[k].rect(LABEL_W + px, top, 1, bh);
			n++;
		}
		for (let k = 0; k < ALPHA_LEVELS; k++) {
			ctx.fillStyle = 'rgba(47, 111, 179, ' + (0.25 + 0.75 * (k + 1) / ALPHA_LEVELS).toFixed(3) + ')';
			ctx.fill(paths[k]);
		}
		stats.columns += n;
		stats.aggregatedLanes++;
	}
	/* critical tasks: red outlines, or a red strip when aggregated */
	if (L.crit) {
		const C = L.crit, c0 = upperBound(C.e, v0), c1 = lowerBound(C.s, v1);
		ctx.strokeStyle = '#d0021b';
		ctx.fillStyle = '#d0021b';
		ctx.lineWidth = 1.5;
		let lastX = -1;
		for (let c = c0; c < c1; c++) {
			const x0 = Math.max(LABEL_W, X(C.s[c])), x1 = Math.min(W, X(C.e[c]));
			if (exact && x1 - x0 >= 2) {
				ctx.strokeRect(x0 + 0.75, top + 0.75, Math.max(1, x1 - x0 - 1.5), bh - 1.5);
			} else if (x1 > lastX) {
				ctx.fillRect(x0, top + bh - 3, Math.max(1, x1 - x0), 3);
				lastX = Math.max(x1, x0 + 1);
			}
			stats.critical++;
		}
	}
	if (L.critWait) {
		const C = L.critWait, c0 = upperBound(C.e, v0), c1 = lowerBound(C.s, v1);
		ctx.strokeStyle = '#d0021b';
		ctx.lineWidth = 1;
		ctx.setLineDash([3, 3]);
		ctx.beginPath();
		for (let c = c0; c < c1; c++) {
			const x0 = Math.max(LABEL_W, X(C.s[c])), x1 = Math.min(W, X(C.e[c]));
			ctx.moveTo(x0, top + bh / 2);
			ctx.lineTo(Math.max(x0 + 1, x1), top + bh / 2);
		}
		ctx.stroke();
		ctx.setLineDash([]);
	}
	/* invocations: a strip above the runs, late ones red */
	for (const A of L.actors) {
		const j0 = upperBound(A.ie, v0), j1 = lowerBound(A.is, v1);
		if (j1 - j0 > PW) continue;
		for (let j = j0; j < j1; j++) {
			const x0 = Math.max(LABEL_W, X(A.is[j])), x1 = Math.min(W, X(A.ie[j]));
			ctx.fillStyle = A.lateSet.has(j) ? '#c62828' : '#33404d';
			ctx.fillRect(x0, y + 2, Math.max(1, x1 - x0), 4);
			stats.invocations++;
		}
	}
}

/*
 * The critical paths' hops from one lane to another: a thin red line from
 * where a stretch ends to where the next one, on another lane, starts.
 * Only where a path has fewer hops in view than pixels.
 */
function drawLinks(scrollY) {
	ctx.strokeStyle = 'rgba(208, 2, 27, 0.75)';
	ctx.lineWidth = 1;
	for (const P of paths) {
		if (!P.links) continue;
		const i0 = Math.max(0, upperBound(P.ss, v0) - 1), i1 = lowerBound(P.ss, v1);
		if (i1 - i0 > PW) continue;
		ctx.beginPath();
		let prev = i0 > 0 ? P.segs[i0 - 1] : null;
		for (let i = i0; i < Math.min(i1 + 1, P.segs.length); i++) {
			const sg = P.segs[i];
			if (sg.lane < 0 || !lanes[sg.lane]) continue;
			if (prev && prev.lane !== sg.lane && prev.lane >= 0 && lanes[prev.lane]) {
				const La = lanes[prev.lane], Lb = lanes[sg.lane];
				const ya = AXIS_H + La.y - scrollY + La.h / 2, yb = AXIS_H + Lb.y - scrollY + Lb.h / 2;
				const xa = X(prev.e), xb = X(sg.s);
				ctx.moveTo(xa, ya);
				ctx.lineTo(xb, yb);
				stats.links++;
			}
			prev = sg;
		}
		ctx.stroke();
	}
}

function niceStep(span, px) {
	const raw = span / Math.max(1, px);
	const p = Math.pow(10, Math.floor(Math.log10(raw)));
	for (const m of [1, 2, 5, 10])
		if (m * p >= raw) return m * p;
	return 10 * p;
}

function drawAxis() {
	ctx.fillStyle = '#fff';
	ctx.fillRect(0, 0, W, AXIS_H);
	ctx.strokeStyle = '#d9dee4';
	ctx.beginPath();
	ctx.moveTo(0, AXIS_H - 0.5);
	ctx.lineTo(W, AXIS_H - 0.5);
	ctx.stroke();
	const step = niceStep(v1 - v0, PW / 110);
	ctx.font = '11px system-ui, sans-serif';
	ctx.fillStyle = '#5d6773';
	ctx.textBaseline = 'middle';
	const first = Math.ceil(v0 / step) * step;
	for (let tt = first; tt <= v1; tt += step) {
		const x = Math.round(X(tt)) + 0.5;
		ctx.fillRect(x, AXIS_H - 7, 1, 6);
		ctx.fillText(fmtAt(tt, step), x + 3, AXIS_H / 2 - 2);
	}
	/* missing data, marked on the axis too */
	for (const g of gaps) {
		if (g.e < v0 || g.s > v1) continue;
		ctx.fillStyle = '#7a848e';
		const x0 = Math.max(LABEL_W, X(g.s));
		ctx.fillRect(x0, AXIS_H - 4, Math.max(2, Math.min(W, X(g.e)) - x0), 3);
	}
	ctx.fillStyle = '#fff';
	ctx.fillRect(0, 0, LABEL_W, AXIS_H);
	ctx.fillStyle = '#5d6773';
	ctx.fillText(D.gantt ? 'actor' : 'thread', 8, AXIS_H / 2);
}

function drawLabels(first, last, scrollY) {
	ctx.fillStyle = '#fff';
	ctx.fillRect(0, AXIS_H, LABEL_W, H - AXIS_H);
	ctx.textBaseline = 'alphabetic';
	for (let li = first; li < last; li++) {
		const L = lanes[li], y = AXIS_H + L.y - scrollY;
		const isUp = upstream && L.actors.includes(upstream);
		ctx.fillStyle = isUp ? '#c62828' : L.actors.length ? '#1d232b' : L.target ? '#2d3640' : '#66707a';
		ctx.font = (L.actors.length ? '600 ' : '') + '12px system-ui, sans-serif';
		const name = D.gantt ? L.name : L.name + ' ' + L.tid;
		ctx.fillText(name.length > 28 ? name.slice(0, 27) + '…' : name, 8, y + 13);
		if (L.actors.length) {
			const A = L.actors[0];
			ctx.font = '10px system-ui, sans-serif';
			ctx.fillStyle = '#5d6773';
			const per = A.period_ns > 0 ? (A.periodic ? 'period ' : 'not periodic, ') + fmtDur(A.period_ns) : 'no period';
			const nb = A.br.length - A.jitter.length;
			ctx.fillText(per + ' · ' + nb + ' break' + (nb === 1 ? '' : 's') +
				(A.jitter.length ? ' · +' + A.jitter.length + ' jitter' : ''), 8, y + 27);
		}
	}
	ctx.strokeStyle = '#d9dee4';
	ctx.beginPath();
	ctx.moveTo(LABEL_W - 0.5, AXIS_H);
	ctx.lineTo(LABEL_W - 0.5, H);
	ctx.stroke();
}

function draw() {
	const t0 = performance.now();
	stats = { lanes: 0, lanesTotal: lanes.length, runs: 0, columns: 0, exactLanes: 0, aggregatedLanes: 0,
		breaks: 0, jitter: 0, invocations: 0, critical: 0, links: 0, gaps: 0, view: [v0, v1] };
	ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
	ctx.clearRect(0, 0, W, H);
	const scrollY = scroller.scrollTop;
	canvas.style.top = scrollY + 'px';
	/* lanes in view */
	const first = Math.max(0, upperBound(laneY, scrollY) - 1);
	let last = first;
	while (last < lanes.length && laneY[last] < scrollY + H - AXIS_H) last++;
	ctx.save();
	ctx.beginPath();
	ctx.rect(LABEL_W, AXIS_H, PW, H - AXIS_H);
	ctx.clip();
	/* the upstream actor's breaks, faint, across every lane: what else ran then */
	if (upstream) {
		for (const b of upstream.br) {
			if (b.e < v0 || b.s > v1 || (!b.major && !b.missing)) continue;
			const x0 = X(b.s);
			ctx.fillStyle = 'rgba(220, 45, 45, 0.07)';
			ctx.fillRect(x0, AXIS_H, Math.max(2, X(b.e) - x0), H - AXIS_H);
		}
	}
	for (let li = first; li < last; li++) {
		drawLane(lanes[li], AXIS_H + lanes[li].y - scrollY, li);
		stats.lanes++;
	}
	drawLinks(scrollY);
	/*
	 * Missing data: lost records hatched; a switch the kernel did not
	 * report (a short window, usually) only tinted.
	 */
	for (const g of gaps) {
		if (g.e < v0 || g.s > v1) continue;
		const x0 = X(g.s), w = Math.max(1, X(g.e) - x0);
		ctx.fillStyle = g.kind === 1 ? 'rgba(160, 168, 176, 0.3)' : 'rgba(160, 168, 176, 0.16)';
		ctx.fillRect(x0, AXIS_H, w, H - AXIS_H);
		if (g.kind === 1) {
			ctx.fillStyle = hatch;
			ctx.fillRect(x0, AXIS_H, Math.max(2, w), H - AXIS_H);
		}
		stats.gaps++;
	}
	ctx.restore();
	drawAxis();
	drawLabels(first, last, scrollY);
	$('view').textContent = fmtAt(v0, (v1 - v0) / 10) + ' … ' + fmtAt(v1, (v1 - v0) / 10) +
		'  (' + fmtDur(v1 - v0) + ')';
	stats.draw_ms = performance.now() - t0;
	return stats;
}

let pending = false;
function redraw() {
	if (pending) return;
	pending = true;
	requestAnimationFrame(() => { pending = false; draw(); });
}

/* ---- navigation ---- */

function setView(a, b) {
	let span = Math.max(MIN_SPAN, b - a);
	if (span >= DUR) { a = 0; span = DUR; }
	a = Math.min(Math.max(a, 0), DUR - span);
	v0 = a;
	v1 = a + span;
}

function zoomAt(x, factor) {
	const tc = T(Math.max(LABEL_W, Math.min(W, x)));
	setView(tc - (tc - v0) * factor, tc + (v1 - tc) * factor);
	redraw();
}

function scrollToLane(li) {
	const L = lanes[li];
	if (!L) return;
	if (L.y < scroller.scrollTop || L.y + L.h > scroller.scrollTop + H - AXIS_H)
		scroller.scrollTop = Math.max(0, L.y - 8);
}

/* Shows a break with its surroundings: three periods either side. */
function goToBreak(A, b) {
	const pad = Math.max(A.period_ns * 3, (b.e - b.s) * 0.5, 1e5);
	setView(b.s - pad, b.e + pad);
	scrollToLane(A.lane);
	canvas.scrollIntoView({ block: 'nearest' });
	redraw();
}

canvas.addEventListener('wheel', (ev) => {
	ev.preventDefault();
	const scale = ev.deltaMode === 1 ? 16 : ev.deltaMode === 2 ? 400 : 1;
	if (ev.shiftKey) {
		scroller.scrollTop += ev.deltaY * scale;
		return;
	}
	const r = canvas.getBoundingClientRect();
	if (Math.abs(ev.deltaX) > Math.abs(ev.deltaY)) {
		const dt = ev.deltaX * scale / PW * (v1 - v0);
		setView(v0 + dt, v1 + dt);
		redraw();
		return;
	}
	zoomAt(ev.clientX - r.left, Math.exp(ev.deltaY * scale * 0.0015));
}, { passive: false });

let drag = null;
canvas.addEventListener('mousedown', (ev) => {
	drag = { x: ev.clientX, y: ev.clientY, v0, v1, top: scroller.scrollTop };
	canvas.classList.add('dragging');
	canvas.focus();
});
window.addEventListener('mouseup', () => {
	drag = null;
	canvas.classList.remove('dragging');
});
window.addEventListener('mousemove', (ev) => {
	if (!drag) return;
	const dt = (ev.clientX - drag.x) / PW * (drag.v1 - drag.v0);
	setView(drag.v0 - dt, drag.v1 - dt);
	scroller.scrollTop = drag.top - (ev.clientY - drag.y);
	redraw();
});
canvas.addEventListener('dblclick', (ev) => {
	const r = canvas.getBoundingClientRect();
	zoomAt(ev.clientX - r.left, 0.25);
});
canvas.addEventListener('keydown', (ev) => {
	const span = v1 - v0;
	const mid = LABEL_W + PW / 2;
	switch (ev.key) {
	case 'w': case '+': case '=': zoomAt(mid, 0.5); break;
	case 's': case '-': zoomAt(mid, 2); break;
	case 'a': case 'ArrowLeft': setView(v0 - span * 0.2, v1 - span * 0.2); redraw(); break;
	case 'd': case 'ArrowRight': setView(v0 + span * 0.2, v1 + span * 0.2); redraw(); break;
	case '0': setView(0, DUR); redraw(); break;
	default: return;
	}
	ev.preventDefault();
});
scroller.addEventListener('scroll', redraw);
window.addEventListener('resize', () => { resize(); redraw(); });
$('zoom-in').addEventListener('click', () => zoomAt(LABEL_W + PW / 2, 0.5));
$('zoom-out').addEventListener('click', () => zoomAt(LABEL_W + PW / 2, 2));
$('zoom-reset').addEventListener('click', () => { setView(0, DUR); redraw(); });

/* ---- hover ---- */

function laneAt(y) {
	const yy = y - AXIS_H + scroller.scrollTop;
	if (y < AXIS_H) return -1;
	const li = upperBound(laneY, yy) - 1;
	if (li < 0 || li >= lanes.length || yy > laneY[li] + lanes[li].h) return -1;
	return li;
}

function describe(li, tt, x) {
	const L = lanes[li], out = [];
	const who = D.gantt ? L.name : L.name + '  tid ' + L.tid + ', pid ' + L.pid +
		(L.target ? ', target' : '') + (L.kernel ? ', kernel thread' : '');
	out.push(who);
	const tol = 3 * (v1 - v0) / PW;
	let i = upperBound(L.s, tt) - 1;
	if (i < 0 || L.e[i] < tt - tol) {
		const j = i + 1;
		if (j < L.n && L.s[j] - tt <= tol) i = j;
		else if (!(i >= 0 && tt - L.e[i] <= tol)) i = -1;
	}
	if (i >= 0) {
		const st = D.states[L.code[i] & 7] || '?';
		const flags = (L.code[i] >> 3) & 7;
		if (D.gantt) {
			out.push('task ' + (L.task ? D.names[L.task[i]] : '') + ' (line ' + (L.line ? L.line[i] : '?') + ')');
			out.push(fmtDur(L.e[i] - L.s[i]) + ' from ' + fmtMs(L.s[i]) + ' to ' + fmtMs(L.e[i]));
		} else {
			out.push('ran ' + fmtDur(L.e[i] - L.s[i]) + ' on CPU ' + (L.code[i] >> 6) + ', ' + (STATE_TEXT[st] || st));
			out.push('from ' + fmtMs(L.s[i]) + ' to ' + fmtMs(L.e[i]) + ' (monotonic ' + absNs(L.s[i]) + ' ns)');
			if (flags & 1) out.push('was already running when the recording started');
			if (flags & 4) out.push('its switch-in was not reported: the start is an upper bound');
			if (flags & 2) out.push('still running when the recording stopped');
		}

	} else {
		out.push('not running at ' + fmtAt(tt, (v1 - v0) / PW));
	}
	if (lowerBound(L.s, v1) - upperBound(L.e, v0) > PW) {	/* drawn as busy fraction */
		const pxw = (v1 - v0) / PW * 4;
		const b = (busyBefore(L, tt + pxw / 2) - busyBefore(L, tt - pxw / 2)) / pxw;
		out.push('busy ' + fmtPct(Math.min(1, b)) + ' around here');
	}
	for (const [C, what] of [[L.crit, 'runs on'], [L.critWait, 'waits on']]) {
		if (!C) continue;
		const c = upperBound(C.s, tt) - 1;
		if (c < 0 || C.e[c] < tt) continue;
		const x = C.v[c];
		for (const pi of x.paths) {
			let line = what + ' the critical path ' + paths[pi].name;
			if (paths[pi].lateness > 0) line += ' (' + fmtDur(paths[pi].lateness) + ' late)';
			out.push(line);
		}
		if (what === 'waits on') {
			const cat = D.critical.cats[x.cat];
			out.push('  ' + (cat || 'waiting') + (x.holder >= 0 && lanes[x.holder] ? ': the CPU was held by ' +
				lanes[x.holder].name + ' ' + lanes[x.holder].tid : ''));
		}
	}
	for (const A of L.actors) {
		const j = upperBound(A.is, tt) - 1;
		if (j >= 0 && A.ie[j] >= tt)
			out.push(A.name + ': invocation ' + j + (A.lateSet.has(j) ? ' (late)' : '') + ', ' +
				fmtDur(A.ie[j] - A.is[j]));
		for (const b of A.br)
			if (b.s <= tt && tt <= b.e)
				out.push((b.completion ?
					(b.major ? 'late completion of ' : 'jitter of ') + A.name + ': invocation ' + b.late +
					' started on time, took ' + fmtDur(b.e - b.s) + ', finished ' :
					(b.major ? 'period break of ' : 'jitter of ') + A.name + ': ' + fmtDur(b.e - b.s) + ' between invocations ' +
					b.before + ' and ' + b.late + ', period ' + fmtDur(A.period_ns) + ', ') +
					fmtDur(b.lateness) + ' late' + (b.missing ? ' (data missing: not trusted)' : ''));
	}
	for (const g of gaps)
		if (g.s <= tt && tt <= g.e)
			out.push('missing data on CPU ' + g.cpu + ': ' + (g.kind === 1 ? g.lost + ' events lost' : 'switches not reported'));
	return out.join('\n');
}

canvas.addEventListener('mousemove', (ev) => {
	if (drag) { tip.hidden = true; return; }
	const r = canvas.getBoundingClientRect();
	const x = ev.clientX - r.left, y = ev.clientY - r.top;
	const li = x > LABEL_W ? laneAt(y) : -1;
	if (li < 0) { tip.hidden = true; return; }
	tip.textContent = describe(li, T(x), x);
	tip.hidden = false;
	const wrap = $('tl-wrap').getBoundingClientRect();
	let left = ev.clientX - wrap.left + 14, top = ev.clientY - wrap.top + 14;
	if (left + tip.offsetWidth > wrap.width) left = Math.max(0, ev.clientX - wrap.left - tip.offsetWidth - 14);
	tip.style.left = left + 'px';
	tip.style.top = top + 'px';
});
canvas.addEventListener('mouseleave', () => { tip.hidden = true; });

/* ---- the page around the timeline ---- */

function legend() {
	const box = $('legend');
	const used = new Set();
	for (const L of lanes) for (let i = 0; i < Math.min(L.n, 2000); i++) used.add(L.code[i] & 7);
	(D.states || []).forEach((s, k) => {
		if (!used.has(k) && !['preempted', 'sleep', 'blocked'].includes(s)) return;
		box.append(el('span', {}, el('i', { style: 'background:' + stateColor[k] }),
			D.gantt ? 'task' : 'ran, then ' + s));
	});
	box.append(el('span', {}, el('i', { style: 'background:rgba(47,111,179,0.7)' }), 'busy fraction (zoomed out)'));
	if (nBreaks) box.append(el('span', {}, el('i', { style: 'background:rgba(220,45,45,0.3)' }), 'period break'));
	if (nJitter) box.append(el('span', {}, el('i', { style: 'background:rgba(230,150,20,0.3)' }), 'jitter (late, under --min-late)'));
	if (nCrit) box.append(el('span', {}, el('i', { style: 'border:2px solid #d0021b' }), 'on a critical path'));
	if (gaps.length) box.append(el('span', {}, el('i', { style: 'background:#b9c0c7' }), 'missing data'));
}

function header() {
	const tr = REPORT.trace;
	if (tr) {
		$('sub').textContent = tr.file + ' — ' + fmtDur(tr.duration_ns) + ' on ' + tr.cpus + ' CPU' +
			(tr.cpus === 1 ? '' : 's') + ', ' + tr.events + ' events, ' +
			(tr.lost_events ? tr.lost_events + ' lost' : 'none lost') + ', ' + lanes.length + ' threads ran';
	} else {
		$('sub').textContent = 'Gantt chart — ' + nRuns + ' tasks of ' + lanes.length + ' actors, ' + fmtDur(DUR);
	}
}

function verdict() {
	const v = $('verdict'), d = REPORT.diagnosis;
	if (d) {
		v.append(el('h2', {}, 'Diagnosis'), qtDiagnosis.box(d, REPORT.patterns, REPORT.patterns_search, el));
		if (upstream) {
			v.className = 'bad';
			v.append(el('p', { class: 'muted' }, 'Its breaks are shaded red on its lane, and faintly across all lanes: look there for what else ran.'));
		} else if (REPORT.verdict === 'keeps_rhythm') {
			v.className = 'good';
			if (nJitter) v.append(el('p', { class: 'muted' }, 'Its jitter is tinted amber on the lanes.'));
		}
	} else if (REPORT.actors === undefined && !D.gantt) {
		v.append(el('p', {}, 'This report has no period analysis: the timeline shows what each thread ran.'));
	} else if (D.gantt) {
		v.append(el('p', {}, D.critical ? 'Critical tasks are outlined in red.' : 'The tasks of the chart, one lane per actor.'));
	} else {
		v.append(el('p', {}, 'No actor with enough activity to study its period.'));
	}
}

/* The box of a view of a recording (id-body), or null with a word for a Gantt chart. */
function recordingView(id) {
	const box = $(id + '-body');
	if (REPORT.trace) return box;
	box.append(el('p', { class: 'muted' }, 'Not for a Gantt chart.'));
	return null;
}

/* The progress graph of two threads (html_progress.js), with the page's helpers. */
let progress = null;
function progressSection() {
	const box = recordingView('progress');
	if (!box) return;
	const t0 = Number(D.t0);
	progress = qtProgress.section(box, REPORT.progress, D.progress, {
		el, table: tables.table, fmt: qtDiagnosis.fmtDuration,
		rel: (ns) => ns - t0,
		at: (ns) => ((ns - t0) / 1e9).toFixed(3),
		atRel: (ns) => (ns / 1e9).toFixed(3),
		/* the stretch [s, e] (ns from the start) in the timeline, with the pair's first lane */
		showTime: (s, e) => {
			const pad = Math.max((e - s) * 0.5, 1e6);
			setView(s - pad, e + pad);
			if (D.progress && D.progress.x >= 0) scrollToLane(D.progress.x);
			canvas.scrollIntoView({ block: 'nearest' });
			redraw();
		},
	});
}

/* The data-flow path (html_dataflow.js), with the page's helpers; null without one. */
let dataflow = null;
function dataflowSection() {
	const box = recordingView('dataflow'), t0 = Number(D.t0);
	if (!box) return;
	/* a hop's stretch [s, e] (CLOCK_MONOTONIC ns) in the timeline, half its length around it */
	const showHop = (s, e) => {
		const pad = Math.max((e - s) * 0.5, 1e5);
		setView(s - t0 - pad, e - t0 + pad);
		canvas.scrollIntoView({ block: 'nearest' });
		redraw();
	};
	dataflow = qtDataflow.section(box, REPORT.data_path,
		{ el, table: tables.table, fmt: qtDiagnosis.fmtDuration, at: (ns) => ((ns - t0) / 1e9).toFixed(6), showTime: showHop });
}

/* ---- start ---- */

function fail(e) {
	console.error('qostrace report: ' + (e && e.stack || e));
	const v = $('verdict');
	v.className = 'bad';
	v.textContent = 'This page could not draw the timeline: ' + e;
}

let tables = null;
try {
	tables = qtTables.page({ $, el, REPORT, D, actors, upstream, goToBreak, fmtDur, fmtAt, fmtPct });
	header();
	verdict();
	legend();
	resize();
	t = performance.now();
	draw();
	timing.first_draw_ms = performance.now() - t;
	tables.actors();
	tables.critical();
	tables.patterns();
	progressSection();
	dataflowSection();
	tables.threads();
	tables.recording();
	timing.total_ms = performance.now() - T_START;
} catch (e) {
	fail(e);
}

/* A small interface for tests and the curious (the browser console). */
window.qostrace = {
	ready: true,
	timing,
	counts: { lanes: lanes.length, runs: nRuns, actors: actors.length, breaks: nBreaks, jitter: nJitter, gaps: gaps.length,
		critical: nCrit, paths: paths.length },
	stats: () => Object.assign({}, stats),
	view: () => [v0, v1],
	/* Sets the window (ns from the start) and draws at once; returns the draw's stats. */
	zoom: (a, b) => { setView(a, b); return draw(); },
	scrollToLane: (li) => { scrollToLane(li); return draw(); },
	goToBreak: (k, i) => { goToBreak(actors[k], actors[k].br[i]); return draw(); },
	/* A duration as the Diagnosis writes it, for the test that compares it with the C one. */
	fmtDuration: qtDiagnosis.fmtDuration,
	/* the progress graph's interface (html_progress.js), null without a pair */
	progress: () => progress,
	/* the data-flow path's interface (html_dataflow.js), null without one */
	dataflow: () => dataflow,
};
})();
