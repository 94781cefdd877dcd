/*
 * qostrace report --html: the Diagnosis at the top of the page, the three
 * answers of report --json's "diagnosis" (src/analysis/diagnosis.h,
 * docs/report.schema.json) in the words of the text report
 * (src/report/text_diagnosis.c): the page says what the terminal says.
 * Embedded before html.js by scripts/gen-html-assets.sh; html.js calls
 * qtDiagnosis.box() with its element builder.
 */
const qtDiagnosis = (function () {
'use strict';

/*
 * Durations as the text report writes them (src/lib/parse.c,
 * fmt_duration): printf's %.3g and %.3f round the double's exact value,
 * ties to even, where toFixed and toPrecision round ties up. The
 * Diagnosis then reads here word for word as in the text report.
 */
function cFixed(x, dec) {
	const s = Math.abs(x).toFixed(100), dot = s.indexOf('.');	/* 100 digits: exact for a double */
	const rest = s.slice(dot + 1 + dec);
	let n = BigInt(s.slice(0, dot) + s.slice(dot + 1, dot + 1 + dec));
	if (rest[0] > '5' || (rest[0] === '5' && (/[1-9]/.test(rest.slice(1)) || n % 2n === 1n))) n += 1n;
	let t = n.toString().padStart(dec + 1, '0');
	if (dec > 0) t = t.slice(0, t.length - dec) + '.' + t.slice(t.length - dec);
	return (x < 0 ? '-' : '') + t;
}

function cG3(x) {
	const s = Math.abs(x).toFixed(100), dot = s.indexOf('.');
	let e = s[0] !== '0' ? dot - 1 : -(s.slice(dot + 1).search(/[1-9]/) + 1);
	let t = cFixed(x, Math.max(0, 2 - e));
	if (Math.abs(parseFloat(t)) >= Math.pow(10, e + 1)) {	/* rounded up into the next decade */
		e++;
		t = cFixed(x, Math.max(0, 2 - e));
	}
	return t.includes('.') ? t.replace(/0+$/, '').replace(/\.$/, '') : t;
}

function cDuration(ns) {
	const a = Math.abs(ns);
	if (a < 1e3) return Math.trunc(ns) + ' ns';
	if (a < 999.5e3) return cG3(ns / 1e3) + ' us';
	if (a < 999.5e6) return cG3(ns / 1e6) + ' ms';
	return cFixed(ns / 1e9, 3) + ' s';
}

/* "13.7 ms to 19.2 ms"; one value when both ends read the same. */
function cRange(lo, hi) {
	const a = cDuration(lo), b = cDuration(hi);
	return a === b ? a : a + ' to ' + b;
}

const plural = (n, word) => n + ' ' + word + (n === 1 ? '' : 's');

/* The first answer: the upstream actor, where its delay went downstream. */
function firstAnswer(d, el) {
	const u = d.upstream, rows = d.breaking || [], out = [];
	const short = (r) => r.comm || r.name;
	out.push('1. ', el('b', {}, u.name), ' is the first to break its ' + cDuration(u.period_ns) + ' period: ' +
		plural(u.breaks, 'break') + (u.jitter ? ' (+' + u.jitter + ' jitter, at most ' + cDuration(u.worst_jitter_ns) + ')' : '') +
		', the worst ' + cDuration(u.worst_lateness_ns) + ' late');
	const follow = rows.filter((r) => r.downstream && r.after_upstream);
	if (follow.length)
		out.push(';', el('br'), 'the delay propagates to ' + follow.map((r) => short(r) +
			(r.own ? ' (' + r.after_upstream + ' of its ' + (r.after_upstream + r.own) + ' breaks)' : '')).join(', '));
	const own = rows.filter((r) => r.on_its_own);
	if (own.length)
		out.push(';', el('br'), 'breaking on their own too (not after its breaks): ' +
			own.map((r) => short(r) + ' ' + plural(r.own_major, 'time')).join(', '));
	if (d.on_its_own_worst)
		out.push('; the worst ' + cDuration(d.on_its_own_worst.lateness_ns) + ' late (' + short(d.on_its_own_worst) + ')');
	out.push('.');
	return out;
}

/* The cut between major breaks and jitter: "10 % of its period", "2 ms"; null: none. */
function cut(d) {
	if (d.min_late_ns !== null && d.min_late_ns !== undefined) return cDuration(d.min_late_ns);
	if (d.min_late_fraction === null || d.min_late_fraction === undefined) return null;
	const p = 100 * d.min_late_fraction;
	return (p === Math.floor(p) ? cFixed(p, 0) : cFixed(p, 1)) + ' % of its period';
}

const SHOWN = 6;	/* DIAG_RHYTHM_SHOWN */

/* No major break: the rhythm is kept, and how close each periodic actor came. */
function keepsRhythm(d, el) {
	const c = cut(d), one = d.periodic === 1;
	const others = d.actors - d.periodic;
	const first = (c === null ?
		(one ? 'its periodic actor never breaks its period' : 'none of its ' + d.periodic + ' periodic actors breaks its period') :
		(one ? 'its periodic actor is never late by ' + c + ' or more' :
			'none of its ' + d.periodic + ' periodic actors is late by ' + c + ' or more')) +
		(others > 0 ? ' (' + others + ' other actor' + (others === 1 ? ' is' : 's are') + ' not periodic)' : '') + '.';
	const rows = (d.rhythm || []).slice(0, SHOWN).map((r) => (r.comm || r.name) + ' ' + (!r.worst_lateness_ns ? 'no break' :
		cFixed(100 * r.share, 1) + ' % (' + cDuration(r.worst_lateness_ns) + ' of ' + cDuration(r.period_ns) +
		(r.jitter ? ', ' + r.jitter + ' jitter' : '') + ')'));
	const more = (d.rhythm || []).length > SHOWN ? ', and ' + (d.rhythm.length - SHOWN) + ' more' : '';
	return [[el('b', {}, 'The pipeline keeps its rhythm'), ': ' + first],
		['Worst lateness, as a share of the period: ' + rows.join(', ') + more + '.']];
}
/* The second: what delayed its worst breaks; null when nothing is named. */
function secondAnswer(c, el) {
	if (!c || c.kind === 'none') return null;
	if (c.kind === 'release')
		return ['2. What delayed it: its worst late invocation was released ' + cDuration(c.total_ns) +
			' later than usual (' + c.name + ').'];
	const n = c.worst_breaks.length;
	const within = n === 1 ? 'in its one break' : 'in ' + c.breaks + ' of its ' + n + ' worst breaks';
	if (c.kind === 'held') {
		const idle = c.holdup === 'cpu_idle';
		const what = idle ? 'while its CPU ran nothing' : c.syscall_nr === null ? 'in the kernel' :
			c.syscall ? 'in ' + c.syscall + '()' : 'in system call ' + c.syscall_nr;
		return ['2. What delayed it: ' + within + ', it was ' + (idle ? 'runnable' : c.state) + ' ', el('b', {}, what),
			' (' + cRange(c.min_ns, c.max_ns) + ')' + (idle ? ': CPU bandwidth throttling (a cgroup\'s CPU quota spent)?' : '.')];
	}
	const how = { cpu_wait_behind: 'it waited for the CPU behind ', ran_through: 'the critical path ran through ',
		waited_on: 'the path waited on ' }[c.how];
	return ['2. What delayed it: ' + within + ', ' + how, el('b', {}, c.name),
		' (' + (c.threads > 1 ? c.threads + ' threads of that name; ' : '') + cRange(c.min_ns, c.max_ns) +
		' more than usual).'];
}

/* The third: the patterns that show up when it breaks (patterns, ps: report --json's patterns, patterns_search). */
function thirdAnswer(p, patterns, ps, el) {
	if (!p) return null;
	/* Skipped when it could not pay (report.schema.json, patterns_search.status). */
	if (!p.found && ps && ps.status && ps.status.startsWith('not searched:'))
		return ['3. Its breaks were not searched for patterns: its period is too short for a media period ' +
			'(see the patterns section).'];
	if (!p.found)
		return ['3. No pattern of activity sets its breaks apart from the periods that hold' +
			(p.searched ? ' (see the patterns section)' : '') + '.'];
	const out = ['3. What shows up when it breaks: '];
	p.shown.forEach((k, i) => {
		const x = patterns[k];
		out.push((i ? '; ' : '') + '"', el('b', {}, x.events.join(' -> ')), '" (in ' + x.count_pos + '/' + x.breaks + ' ' +
			(x.level ? 'worst ' : '') + 'breaks, ' + x.count_neg + '/' + p.periods + ' periods)');
	});
	out.push('.');
	return out;
}

/*
 * The Diagnosis of report --json (src/analysis/diagnosis.h), in the text
 * report's words; patterns and search are its patterns and patterns_search.
 */
function box(d, patterns, search, el) {
	const box = el('div', { id: 'diagnosis' });
	if (d.answer === 'no_actor')
		box.append(el('p', {}, 'No thread did enough to judge a period (see --actor to choose one).'));
	else if (d.answer === 'none_periodic')
		box.append(el('p', {}, 'None of the ' + d.actors + ' actors is periodic (QCoD below ' +
			cFixed(100 * d.qcod_threshold, 0) + ' %): choose one with --actor, or allow more dispersion with --qcod.'));
	else if (d.answer === 'none_breaks')
		for (const parts of keepsRhythm(d, el)) box.append(el('p', {}, ...parts));
	else
		for (const parts of [firstAnswer(d, el), secondAnswer(d.cause, el), thirdAnswer(d.patterns, patterns, search, el)])
			if (parts) box.append(el('p', {}, ...parts));
	return box;
}

return { box, fmtDuration: cDuration };
})();
