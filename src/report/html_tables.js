/*
 * qostrace report --html: the tables under the timeline (its actors, the
 * critical paths, the patterns, the threads, the recording), from report
 * --json's sections. Embedded before html.js by scripts/gen-html-assets.sh;
 * html.js calls qtTables.page() with the page's helpers and its link into
 * the timeline (goToBreak), and each table's function fills its box.
 */
const qtTables = (function () {
'use strict';

function page(ctx) {
	const { $, el, REPORT, D, actors, upstream, goToBreak, fmtDur, fmtAt, fmtPct } = ctx;

	function table(head, rows, numeric) {
		const t = el('table');
		t.append(el('tr', {}, ...head.map((h, i) => el('th', { class: numeric && numeric[i] ? 'num' : '' }, h))));
		for (const r of rows) {
			const tr = el('tr', r.cls ? { class: r.cls } : {});
			r.cells.forEach((c, i) => tr.append(el('td', { class: numeric && numeric[i] ? 'num' : '' }, c)));
			t.append(tr);
		}
		return t;
	}

	function actorTable() {
		const box = $('actors-body');
		if (!actors.length) {
			box.append(el('p', { class: 'muted' }, D.gantt ? 'Not for a Gantt chart.' : 'No actors were studied.'));
			return;
		}
		const rows = actors.map((A) => {
			const chips = el('div');
			const brk = A.br.filter((b) => b.major || b.missing);
			const shown = brk.slice().sort((a, b) => b.lateness - a.lateness).slice(0, 12);
			for (const b of shown)
				chips.append(el('span', { class: 'chip' + (b.missing ? ' missing' : ''),
					title: 'between invocations ' + b.before + ' and ' + b.late + ' — click to show',
					onclick: () => goToBreak(A, b) }, '+' + fmtDur(b.lateness) + ' at ' + fmtAt(b.e, 1e6)));
			if (brk.length > shown.length) chips.append(el('span', { class: 'muted' }, '… ' + (brk.length - shown.length) + ' more'));
			const worstJitter = A.jitter.reduce((m, b) => Math.max(m, b.lateness), 0);
			return {
				cls: A === upstream ? 'upstream' : '',
				cells: [A.name + (A === upstream ? '  (first to break)' : ''), A.kind, A.ninv,
					A.period_ns > 0 ? fmtDur(A.period_ns) : '—', A.period_ns > 0 ? A.qcod.toFixed(3) : '—',
					A.periodic ? 'yes' : 'no', brk.length, brk.length ? chips : '',
					A.jitter.length ? '+' + A.jitter.length + ', at most ' + fmtDur(worstJitter) : ''],
			};
		});
		box.append(table(['actor', 'kind', 'invocations', 'period', 'QCoD', 'periodic', 'breaks', 'largest breaks', 'jitter'],
			rows, [0, 0, 1, 1, 1, 0, 1, 0, 0]));
	}

	function who(s) {
		return s.comm + (s.tid ? ' ' + s.tid : '');
	}

	/* The largest rows of an accounting, inline: "timer 1.16 s · src 8819 211 ms · ..." */
	function shareLine(share, n) {
		const span = el('span');
		(share || []).slice(0, n).forEach((s, i) => {
			if (i) span.append(el('span', { class: 'muted' }, ' · '));
			span.append(el('span', { class: s.tid ? '' : 'muted' }, who(s) + ' '), el('b', {}, fmtDur(s.ns)));
		});
		return span;
	}

	function shareTable(share, total) {
		const rows = (share || []).slice(0, 8).map((s) => ({
			cells: [who(s), s.kind || '', fmtDur(s.ns),
				el('span', { class: 'bar', style: 'width:' + Math.max(1, Math.round(160 * s.ns / Math.max(1, total))) + 'px' })],
		}));
		return table(['who', 'as', 'time on the path', ''], rows, [0, 0, 1, 0]);
	}

	/* An actor of qt-data by its report name, for the links to the timeline. */
	function actorNamed(name) {
		return actors.find((A) => A.name === name);
	}

	function criticalSection() {
		const box = $('critical-body'), c = REPORT.critical;
		if (!c) {
			box.append(el('p', { class: 'muted' }, 'No critical-path analysis in this report.'));
			return;
		}
		const w = c.whole || {};
		box.append(el('p', {}, 'ε = ' + fmtDur(c.epsilon_ns || 0) + (c.epsilon_source ? ' (' + c.epsilon_source + ')' : '') +
			'. The critical path of the whole ' + (D.gantt ? 'chart' : 'recording') + ' is ' + fmtDur(w.length_ns || 0) +
			(w.critical_task_count !== undefined ? ', ' + w.critical_task_count + ' critical tasks' : '') + '.'));
		if (w.share && w.share.length) box.append(shareTable(w.share, w.length_ns || 1));
		if (w.critical_tasks && w.critical_tasks.length)
			box.append(el('p', { class: 'events' }, 'critical tasks: ' + w.critical_tasks.slice(0, 40).join(', ') +
				(w.critical_tasks.length > 40 ? ' …' : '')));
		const br = (c.breaks || []).slice().sort((x, y) => y.lateness_ns - x.lateness_ns);
		if (br.length) {
			box.append(el('h3', {}, 'What delayed each late invocation'));
			const rows = br.slice(0, 15).map((b) => {
				const A = actorNamed(b.actor);
				const brk = A && A.br.find((x) => x.late === b.late_invocation);
				const d = b.delayed_by;
				return {
					cells: [brk ? el('span', { class: 'chip' + (b.data_missing ? ' missing' : ''), onclick: () => goToBreak(A, brk),
						title: 'show it in the timeline' }, b.actor + ' #' + b.late_invocation) : b.actor + ' #' + b.late_invocation,
						'+' + fmtDur(b.lateness_ns) + (brk && !brk.major ? ' (jitter)' : ''),
						d ? el('span', {}, el('b', {}, who(d)), ' ' + (d.kind || '') + ' ' +
							fmtDur(d.ns) + (d.excess_ns > 0 ? ' (+' + fmtDur(d.excess_ns) + ' over its mean)' : '')) : '—',
						shareLine(b.share, 3)],
				};
			});
			box.append(table(['late invocation', 'late by', 'delayed most by', 'on its critical path'], rows, [0, 1, 0, 0]));
			if (br.length > 15) box.append(el('p', { class: 'muted' }, (br.length - 15) + ' more breaks in report --json.'));
		}
		if (c.actors && c.actors.length) {
			box.append(el('h3', {}, 'Into the invocations of each actor'));
			const rows = c.actors.map((a) => ({
				cells: [a.actor || who(a), a.invocations, fmtDur(a.total_ns || 0), shareLine(a.share, 4)],
			}));
			box.append(table(['actor', 'invocations', 'time', 'most time on the paths into them'], rows, [0, 1, 1, 0]));
		}
	}

	function patternsSection() {
		const box = $('patterns-body'), p = REPORT.patterns, ps = REPORT.patterns_search;
		if (!p) {
			box.append(el('p', { class: 'muted' }, D.gantt ? 'Not for a Gantt chart.' : 'No pattern mining in this report.'));
			return;
		}
		if (!p.length) {
			box.append(el('p', { class: 'muted' }, ps && ps.status ? 'No patterns: ' + ps.status + '.' :
				'No pattern tells the breaks apart from the periods that hold.'));
			return;
		}
		if (ps && ps.actor)
			box.append(el('p', { class: 'muted' }, 'Sequences of system activity found in the windows where ' + ps.actor +
				' breaks its period (' + (ps.windows_pos || 0) + ' breaks) and rarely where it holds (' + (ps.windows_neg || 0) +
				' periods). Minimal patterns, best first.'));
		const rows = p.slice(0, 20).map((x) => ({
			cells: [el('span', { class: 'events' }, (x.events || []).join('  →  ')),
				el('span', {}, el('span', { class: 'bar', style: 'width:' + Math.round(100 * (x.support_pos || 0)) + 'px' }),
					' ' + fmtPct(x.support_pos || 0) + (x.count_pos !== undefined ? ' (' + x.count_pos + ')' : '')),
				el('span', {}, el('span', { class: 'bar neg', style: 'width:' + Math.round(100 * (x.support_neg || 0)) + 'px' }),
					' ' + fmtPct(x.support_neg || 0) + (x.count_neg !== undefined ? ' (' + x.count_neg + ')' : ''))],
		}));
		box.append(table(['pattern', 'in breaks', 'where the period holds'], rows, [0, 0, 0]));
		if (p.length > 20) box.append(el('p', { class: 'muted' }, (p.length - 20) + ' more in report --json.'));
	}

	function threadsSection() {
		const box = $('threads-body'), th = REPORT.threads;
		if (!th) {
			box.append(el('p', { class: 'muted' }, 'Lanes are the actors of the chart.'));
			return;
		}
		const rows = th.slice(0, 15).map((x) => ({
			cells: [x.tid, x.pid, x.comm + (x.target ? '  (target)' : ''), fmtDur(x.run_ns), x.occurrences, x.preempted, x.syscalls],
		}));
		box.append(table(['tid', 'pid', 'comm', 'on CPU', 'runs', 'preempted', 'syscalls'], rows, [1, 1, 0, 1, 1, 1, 1]));
		if (th.length > 15) box.append(el('p', { class: 'muted' }, (th.length - 15) + ' more threads in the timeline.'));
	}

	function recordingSection() {
		const box = $('recording-body'), tr = REPORT.trace;
		if (!tr) {
			box.append(el('p', { class: 'muted' }, 'A Gantt chart (no recording).'));
			return;
		}
		const rows = [
			['file', tr.file], ['command', tr.command || '—'], ['kernel', tr.kernel || '—'],
			['duration', fmtDur(tr.duration_ns)], ['CPUs', tr.cpus], ['events', tr.events],
			['lost events', tr.lost_events], ['complete', tr.complete ? 'yes' : 'no (' + (tr.stop_reason || 'cut short') + ')'],
			['windows with missing data', (tr.gaps || []).length], ['runs with an unreported start', tr.uncertain_runs],
		].map((r) => ({ cells: r }));
		box.append(table(['', ''], rows));
	}

	return { table, actors: actorTable, critical: criticalSection, patterns: patternsSection,
		threads: threadsSection, recording: recordingSection };
}

return { page };
})();
