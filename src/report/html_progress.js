/*
 * qostrace report --html: the progress graph of two threads
 * (src/progress/progress.h): A's progress on x, B's on y; where both run
 * the trajectory climbs at 45 degrees, where y waits for x it runs
 * horizontally, where x waits for y vertically. The section's sentences
 * say what the text report says (src/report/text_progress.c), from
 * report --json's "progress"; the picture draws qt-data's rays
 * (src/report/html_views.h). Embedded before html.js by
 * scripts/gen-html-assets.sh; html.js calls qtProgress.section().
 */
const qtProgress = (function () {
'use strict';

const KIND = ['D', 'H', 'V', 'X', 'S'];
const COLOR = { D: '#5d6773', H: '#2f6fb3', V: '#e8912d', X: '#9aa5b1', S: '#c62828' };
const FD_CALLS = new Set(['read', 'write', 'readv', 'writev', 'pread64', 'pwrite64', 'preadv', 'pwritev', 'preadv2',
	'pwritev2', 'recvfrom', 'recvmsg', 'recvmmsg', 'sendto', 'sendmsg', 'sendmmsg', 'epoll_wait', 'epoll_pwait',
	'epoll_pwait2', 'accept', 'accept4', 'ioctl', 'fsync', 'fdatasync', 'splice', 'tee', 'flock', 'connect', 'close']);

/* A call as the text report writes it: "read(fd 3)", "futex(0x7f..)", "clock_nanosleep". */
function callText(name, nr, arg0) {
	if (nr < 0) return '-';
	if (!name) return 'syscall ' + nr;
	if (name === 'futex') return 'futex(0x' + BigInt(arg0).toString(16) + ')';
	if (FD_CALLS.has(name)) return name + '(fd ' + BigInt.asIntN(32, BigInt(arg0)) + ')';
	return name;
}

function section(box, R, P, h) {
	const { el, fmt, at } = h;
	if (!R) {
		box.append(el('p', { class: 'muted' }, 'No two threads of this recording wait for each other.'));
		return null;
	}
	const th = R.threads, name = th.map((t) => t.comm + '/' + t.tid);
	const para = (...kids) => box.append(el('p', {}, ...kids));

	para(el('b', {}, name[0]), ' on x, ', el('b', {}, name[1]), ' on y: ',
		R.chosen === 'named' ? 'as --pair named them.' : R.chosen === 'upstream' ?
			'the upstream actor and the thread it wakes most (' + R.upstream_wakeups + ' wakeups).' :
			'the two threads that wait for each other the longest.');
	para(R.blocks_total + (R.blocks_total === 1 ? ' block: ' : ' blocks: ') + [0, 1].map((t) => name[t] + ' waited for ' + name[1 - t] + ' ' + th[t].blocks +
		' time' + (th[t].blocks === 1 ? '' : 's') + (th[t].blocks ? ', ' + fmt(th[t].blocked_ns) + ' in all' : '') +
		(th[t].open_ns ? ', and waits from ' + at(R.end_ns - th[t].open_ns) + ' s to the end, not woken' : '')).join('; ') + '.');
	if (R.dead_point)
		para(R.dead_point.deadlock ? 'From ' + at(R.dead_point.at_ns) + ' s neither runs again: both wait and nothing ' +
			'wakes either before the end (a deadlock, if they wait for each other).' : 'At ' + at(R.dead_point.at_ns) + ' s both stopped (an exit).');
	const c = R.cycle;
	if (c.state === 'non_blocking') {
		para(R.blocks_total ? 'They stop waiting for each other: the last ' + fmt(R.q3_trailing_ns) +
			' run without a block.' : 'They never wait for each other.');
	} else if (c.state === 'none') {
		para('No steady cycle: the blocks do not repeat 3 times in a row.');
	} else {
		const parts = c.pattern.map((p) => 'both run ' + fmt(p.q3_ns) + ', then ' + name[p.thread] + ' waits ' +
			fmt(p.q2_ns) + ' in ' + callText(p.call, p.nr, p.arg0) +
			(p.waker_nr >= 0 ? ' until ' + name[1 - p.thread] + '\'s ' + (p.waker_call || 'syscall ' + p.waker_nr) :
				' until ' + name[1 - p.thread] + ' wakes it'));
		para(el('b', {}, 'Steady cycle'), ' of ' + c.blocks_per_cycle + ' block' + (c.blocks_per_cycle === 1 ? '' : 's') +
			', every ' + fmt(c.period_ns) + ' (' + c.blocks_following + ' of ' + [0, 1].reduce((n, t) => n + th[t].blocks, 0) +
			' blocks follow it; unbroken for ' + c.repetitions + ' repetitions from ' +
			at(R.blocks && c.first_block < R.blocks.length ? R.blocks[c.first_block].start_ns - c.pattern[0].q3_ns : R.t0_ns) + ' s): ' + parts.join('; ') + '.');
		para('Per cycle ' + name[0] + ' advances ' + fmt(c.advance_ns[0]) + ' and ' + name[1] + ' ' + fmt(c.advance_ns[1]) +
			'; ' + name[0] + ' is blocked ' + (100 * c.blocked_share[0]).toFixed(1) + ' % of it, ' + name[1] + ' ' +
			(100 * c.blocked_share[1]).toFixed(1) + ' %.');
	}
	para(el('span', { class: 'muted' }, 'Progress that is not running together: ' + [0, 1].map((t) => name[t] +
		' preempted ' + fmt(th[t].preempted_ns) + ', waiting for others ' + fmt(th[t].other_ns) + ' (' +
		th[t].other_waits + (th[t].other_waits === 1 ? ' wait' : ' waits') + '), woken by the other and not yet running ' + fmt(th[t].latency_ns)).join('; ') +
		(R.anomalies ? '; ' + R.anomalies + ' times both blocked on each other at once' : '') + '.'));

	/* ---- the picture ---- */
	const rays = [];
	const r = (P && P.rays) || [];
	for (let i = 0; i + 8 <= r.length; i += 8)
		rays.push({ k: KIND[r[i]], t0: r[i + 1], x0: r[i + 2], y0: r[i + 3], x1: r[i + 4], y1: r[i + 5], block: r[i + 6],
			open: !!(r[i + 7] & 1), dead: !!(r[i + 7] & 2), dep: -1 });
	for (let i = 0; i < rays.length; i++) rays[i].t1 = i + 1 < rays.length ? rays[i + 1].t0 : Infinity;
	const t0s = Float64Array.from(rays.map((x) => x.t0));
	const lower = (v) => { let lo = 0, hi = t0s.length; while (lo < hi) { const m = (lo + hi) >>> 1; if (t0s[m] < v) lo = m + 1; else hi = m; } return lo; };
	const deps = (R.departures || []).map((d, i) => {
		const s = h.rel(d.start_ns), e = h.rel(d.end_ns);
		const a = Math.max(0, lower(s) - 1), b = lower(e);
		for (let j = a; j < b && j < rays.length; j++) if (rays[j].t1 > s) rays[j].dep = i;
		return { d, s, e, a, b };
	});

	const wrap = el('div', { class: 'pg-wrap' });
	const canvas = el('canvas', { id: 'pg', tabindex: '0' });
	const tip = el('div', { class: 'pg-tip', hidden: '' });
	const tools = el('div', { class: 'toolbar' });
	const legend = el('span', { class: 'legend' });
	for (const [k, what] of [['D', 'both run'], ['H', name[1] + ' waits for ' + name[0]],
		['V', name[0] + ' waits for ' + name[1]], ['X', 'after an exit'], ['S', 'departs from the cycle']])
		legend.append(el('span', {}, el('i', { style: 'background:' + COLOR[k] }), what));
	const nav = el('span', { class: 'nav' });
	const btn = (label, title, fn) => { const b = el('button', { type: 'button', title, onclick: fn }, label); nav.append(b); return b; };
	tools.append(legend, nav);
	wrap.append(canvas, tip);
	box.append(tools, wrap);
	box.append(el('p', { class: 'help' }, 'x: ' + name[0] + '\'s progress, y: ' + name[1] + '\'s (ms of wall time not ' +
		'spent waiting for the other). Wheel: zoom at the pointer; drag: pan.' +
		(P && P.cut ? ' The first ' + rays.length + ' of ' + P.n + ' rays are drawn.' : '')));

	const ctx = canvas.getContext('2d');
	let W = 640, H = 640, dpr = 1, vx = 0, vy = 0, s = 1, drawn = 0;
	const PAD = 56;
	function size() {
		dpr = window.devicePixelRatio || 1;
		W = Math.max(320, Math.min(760, (box.clientWidth || 760) - 2));
		H = Math.round(W * 0.8);
		canvas.style.width = W + 'px';
		canvas.style.height = H + 'px';
		canvas.width = Math.round(W * dpr);
		canvas.height = Math.round(H * dpr);
	}
	const PX = (x) => PAD + (x - vx) / s, PY = (y) => H - PAD - (y - vy) / s;
	function fit(a, b) {
		let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
		for (let i = a; i < b && i < rays.length; i++) {
			const q = rays[i];
			x0 = Math.min(x0, q.x0, q.x1); x1 = Math.max(x1, q.x0, q.x1);
			y0 = Math.min(y0, q.y0, q.y1); y1 = Math.max(y1, q.y0, q.y1);
		}
		if (!isFinite(x0)) { x0 = y0 = 0; x1 = y1 = 1; }
		s = Math.max((x1 - x0) / (W - 2 * PAD), (y1 - y0) / (H - 2 * PAD), 1);
		vx = x0 - 0.02 * (W - 2 * PAD) * s;
		vy = y0 - 0.02 * (H - 2 * PAD) * s;
		draw();
	}
	function niceStep(span, n) {
		const raw = span / Math.max(1, n), p = Math.pow(10, Math.floor(Math.log10(raw)));
		for (const m of [1, 2, 5, 10]) if (raw <= m * p) return m * p;
		return 10 * p;
	}
	function draw() {
		ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
		ctx.clearRect(0, 0, W, H);
		ctx.font = '11px system-ui, sans-serif';
		ctx.fillStyle = '#5d6773';
		ctx.strokeStyle = '#eef1f4';
		const step = niceStep((W - 2 * PAD) * s, 6);
		for (let gx = Math.ceil(vx / step) * step; PX(gx) <= W - PAD / 2; gx += step) {
			ctx.beginPath(); ctx.moveTo(PX(gx) + 0.5, PAD / 2); ctx.lineTo(PX(gx) + 0.5, H - PAD); ctx.stroke();
			ctx.fillText((gx / 1e6).toFixed(step >= 1e6 ? 0 : 3), PX(gx) - 8, H - PAD + 14);
		}
		ctx.textAlign = 'right';
		for (let gy = Math.ceil(vy / step) * step; PY(gy) >= PAD / 2; gy += step) {
			ctx.beginPath(); ctx.moveTo(PAD, PY(gy) + 0.5); ctx.lineTo(W - PAD / 2, PY(gy) + 0.5); ctx.stroke();
			ctx.fillText((gy / 1e6).toFixed(step >= 1e6 ? 0 : 3), PAD - 4, PY(gy) + 4);
		}
		ctx.textAlign = 'left';
		ctx.fillText(name[0] + ' (ms) →', W / 2 - 40, H - 8);
		ctx.save();
		ctx.translate(10, PAD / 2 + (H - 1.5 * PAD) / 2 + 40);
		ctx.rotate(-Math.PI / 2);
		ctx.fillText(name[1] + ' (ms) →', 0, 0);
		ctx.restore();
		ctx.save();
		ctx.beginPath();
		ctx.rect(PAD, PAD / 2, W - 1.5 * PAD, H - 1.5 * PAD);
		ctx.clip();
		const xmax = vx + (W - PAD) * s, ymax = vy + (H - PAD) * s;
		drawn = 0;
		for (const pass of [0, 1]) {
			for (const q of rays) {
				if (Math.max(q.x0, q.x1) < vx || Math.min(q.x0, q.x1) > xmax || Math.max(q.y0, q.y1) < vy ||
				    Math.min(q.y0, q.y1) > ymax)
					continue;
				if ((q.dep >= 0) !== (pass === 1)) continue;
				drawn++;
				if (q.k === 'S') {
					ctx.fillStyle = q.dead ? COLOR.S : '#8d5fc9';
					ctx.beginPath(); ctx.arc(PX(q.x0), PY(q.y0), 5, 0, 2 * Math.PI); ctx.fill();
					continue;
				}
				ctx.strokeStyle = q.dep >= 0 ? COLOR.S : COLOR[q.k];
				ctx.lineWidth = q.dep >= 0 ? 2.5 : q.k === 'D' ? 1.2 : 2;
				ctx.setLineDash(q.open ? [5, 4] : q.k === 'X' ? [2, 3] : []);
				ctx.beginPath(); ctx.moveTo(PX(q.x0), PY(q.y0)); ctx.lineTo(PX(q.x1), PY(q.y1)); ctx.stroke();
			}
		}
		ctx.setLineDash([]);
		ctx.restore();
		ctx.strokeStyle = '#9aa5b1';
		ctx.lineWidth = 1;
		ctx.strokeRect(PAD + 0.5, PAD / 2 + 0.5, W - 1.5 * PAD, H - 1.5 * PAD);
		return drawn;
	}
	function zoomAt(px, py, f) {
		const x = vx + (px - PAD) * s, y = vy + (H - PAD - py) * s;
		s = Math.max(s * f, 1e-3);
		vx = x - (px - PAD) * s;
		vy = y - (H - PAD - py) * s;
		draw();
	}
	/* A few cycles from the cycle's first block, or the start. */
	function zoomCycle() {
		if (c.state !== 'steady') return fit(0, Math.min(rays.length, 40));
		let i = rays.findIndex((q) => q.block === c.first_block);
		if (i < 0) return fit(0, rays.length);
		return fit(Math.max(0, i - 1), Math.min(rays.length, i + 1 + 2 * 3 * c.blocks_per_cycle));
	}
	function zoomDeparture(k) {
		const d = deps[k];
		if (!d) return 0;
		return fit(Math.max(0, d.a - 4 * (c.blocks_per_cycle || 1)), Math.min(rays.length, d.b + 4 * (c.blocks_per_cycle || 1)));
	}
	function nearest(px, py) {
		let best = -1, bd = 7;
		for (let i = 0; i < rays.length; i++) {
			const q = rays[i], ax = PX(q.x0), ay = PY(q.y0), bx = PX(q.x1), by = PY(q.y1);
			const dx = bx - ax, dy = by - ay, l2 = dx * dx + dy * dy;
			const u = l2 ? Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / l2)) : 0;
			const dd = Math.hypot(px - ax - u * dx, py - ay - u * dy);
			if (dd < bd) { bd = dd; best = i; }
		}
		return best;
	}
	function describe(i) {
		const q = rays[i], out = [];
		const b = q.block >= 0 && R.blocks && q.block < R.blocks.length ? R.blocks[q.block] : null;
		const dur = (q.t1 === Infinity ? Math.max(q.x1 - q.x0, q.y1 - q.y0) : q.t1 - q.t0);
		if (q.k === 'D') out.push('both run ' + fmt(dur));
		else if (q.k === 'X') out.push((q.x1 === q.x0 ? name[0] : name[1]) + ' has exited; the other runs ' + fmt(dur));
		else if (q.k === 'S') out.push(q.dead ? 'neither can go on' : 'both blocked on each other at once');
		else {
			const who = q.k === 'H' ? 1 : 0;
			out.push(name[who] + ' waits for ' + name[1 - who] + ' ' + fmt(b ? b.q2_ns : dur) + (q.open ? ' (to the end, not woken)' : '') +
				(q.block >= 0 ? ', block ' + q.block : ''));
			if (b) out.push('in ' + callText(b.call, b.nr, b.arg0) + (b.open ? '' : ' until ' + name[1 - who] + '\'s ' +
				(b.waker_call || (b.waker_nr >= 0 ? 'syscall ' + b.waker_nr : 'wakeup'))) +
				(b.latency_ns ? '; runs ' + fmt(b.latency_ns) + ' after the wakeup' : ''));
		}
		out.push('at ' + h.atRel(q.t0) + ' s, from (' + (q.x0 / 1e6).toFixed(3) + ', ' + (q.y0 / 1e6).toFixed(3) + ') ms');
		if (q.dep >= 0) out.push('departs from the steady cycle here (' + (deps[q.dep].d.excess_ns >= 0 ? '+' : '-') +
			fmt(Math.abs(deps[q.dep].d.excess_ns)) + ')');
		return out.join('\n');
	}
	canvas.addEventListener('wheel', (ev) => {
		ev.preventDefault();
		const rc = canvas.getBoundingClientRect();
		zoomAt(ev.clientX - rc.left, ev.clientY - rc.top, Math.exp(ev.deltaY * (ev.deltaMode ? 16 : 1) * 0.0015));
	}, { passive: false });
	let drag = null;
	canvas.addEventListener('mousedown', (ev) => { drag = { x: ev.clientX, y: ev.clientY, vx, vy }; });
	window.addEventListener('mouseup', () => { drag = null; });
	canvas.addEventListener('mousemove', (ev) => {
		const rc = canvas.getBoundingClientRect();
		if (drag) {
			vx = drag.vx - (ev.clientX - drag.x) * s;
			vy = drag.vy + (ev.clientY - drag.y) * s;
			tip.hidden = true;
			draw();
			return;
		}
		const i = nearest(ev.clientX - rc.left, ev.clientY - rc.top);
		if (i < 0) { tip.hidden = true; return; }
		tip.textContent = describe(i);
		tip.hidden = false;
		tip.style.left = Math.min(ev.clientX - rc.left + 14, W - 200) + 'px';
		tip.style.top = (ev.clientY - rc.top + 14) + 'px';
	});
	canvas.addEventListener('mouseleave', () => { tip.hidden = true; });
	btn('all', 'The whole trajectory', () => fit(0, rays.length));
	if (c.state === 'steady') btn('cycle', 'A few cycles of the steady cycle', zoomCycle);

	if (deps.length) {
		box.append(el('h3', {}, 'Where it departs from the steady cycle'));
		const order = deps.map((d, i) => i).sort((a, b) => deps[b].d.excess_ns - deps[a].d.excess_ns).slice(0, 15);
		const rows = order.map((i) => {
			const d = deps[i].d, wb = R.blocks && d.worst_block < R.blocks.length ? R.blocks[d.worst_block] : null;
			const who = wb ? name[wb.thread] : 'a thread';
			return {
				cells: [el('span', { class: 'chip', title: 'show it in the graph', onclick: () => zoomDeparture(i) },
					at(d.start_ns) + ' s'), d.blocks, (d.excess_ns >= 0 ? '+' : '-') + fmt(Math.abs(d.excess_ns)),
				who + ' waited ' + fmt(d.worst_q2_ns) + (d.expected_q2_ns === null ? ' out of turn' : ' instead of ' +
					fmt(d.expected_q2_ns)),
				d.break ? el('span', { class: 'chip', title: 'show it in the timeline',
					onclick: () => h.showTime(h.rel(d.start_ns), h.rel(d.end_ns)) },
					d.break.name + ' late by ' + fmt(d.break.lateness_ns)) : '-'],
			};
		});
		box.append(h.table(['at', 'blocks', 'cost', 'what', 'period break'], rows, [1, 1, 1, 0, 0]));
		if (deps.length > order.length) box.append(el('p', { class: 'muted' }, (deps.length - order.length) + ' more in report --json.'));
	}
	size();
	if (c.state === 'steady') zoomCycle(); else fit(0, rays.length);
	window.addEventListener('resize', () => { size(); draw(); });
	return {
		rays: rays.length, departures: deps.length, drawn: () => drawn,
		view: () => [vx, vy, s], fit: () => fit(0, rays.length), zoomCycle, zoomDeparture,
		/* the middle of ray i in CSS pixels of the canvas, and whether it is in view */
		rayPoint: (i) => {
			const q = rays[i], x = (PX(q.x0) + PX(q.x1)) / 2, y = (PY(q.y0) + PY(q.y1)) / 2;
			return { x, y, kind: q.k, shown: x >= PAD && x <= W - PAD / 2 && y >= PAD / 2 && y <= H - PAD };
		},
		/* the tooltip's text at a point of the canvas (CSS pixels), '' if no ray is near */
		describeAt: (px, py) => { const i = nearest(px, py); return i < 0 ? '' : describe(i); },
	};
}

return { section, callText };
})();
