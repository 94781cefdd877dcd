/*
 * qostrace report --html: the data-flow critical path (src/dataflow/
 * stage.h; Nguyen & Karavanic): the chain of processes and objects whose
 * data made the target last, root first, with what waited and what was
 * worked on. The section says what the text report says (src/report/
 * text_dataflow.c), from report --json's "data_path"; a hop's chip shows
 * its stretch in the timeline. Embedded before html.js by
 * scripts/gen-html-assets.sh; html.js calls qtDataflow.section().
 */
const qtDataflow = (function () {
'use strict';

/* "out (254:0:1234) v2", "pipe:[77] v1-v3" */
function made(x, v0, v1) {
	return (x.name ? x.name + ' (' + x.object + ')' : x.object) + ' v' + v0 + (v1 !== v0 ? '-v' + v1 : '');
}

function who(x) {
	return x.pid === null ? '(before the recording)' : (x.comm || '?') + '/' + x.pid;
}

function section(box, R, h) {
	const { el, table, fmt, at } = h;
	const para = (...kids) => box.append(el('p', {}, ...kids));
	if (!R) {
		para(el('span', { class: 'muted' }, 'This recording has no data records (a file of an older qostrace, the tracefs ' +
			'attach path, -a without --data, or --no-data): qostrace report --data-path FILE says which.'));
		return null;
	}
	if (!R.target) {
		para(el('span', { class: 'muted' }, 'No data call of the targets moved anything (' + R.calls + ' calls recorded).'));
		return null;
	}
	const hops = R.hops, last = hops[hops.length - 1];
	para('Into ', el('b', {}, made(R.target, R.target.version, R.target.version)), ' at ' + at(R.target.t_ns) + ' s, ',
		el('span', { class: 'muted' }, R.named ? 'as --data-path named it' :
			'the last file written that nothing read (--data-path=OBJECT for another)'),
		': ' + fmt(R.elapsed_ns) + ' after its root, through ' + (hops.length - 1) + ' hop' + (hops.length === 2 ? '' : 's') + '.');
	let shown = -1;
	const show = (i) => {
		const x = hops[i];
		shown = i;
		h.showTime(x.read_at_ns !== null ? x.read_at_ns : x.first_ns, x.last_ns);
	};
	/* a long path (threads of one process passing messages): the root and the last hops, until asked */
	const SHOWN = 15, tableBox = el('div');
	let all = hops.length <= SHOWN + 2;
	const rowsOf = () => {
		const rows = [];
		hops.forEach((x, i) => {
			if (!all && i > 0 && i < hops.length - SHOWN) {
				if (i === 1)
					rows.push({ cls: 'muted', cells: ['', el('span', { class: 'chip', title: 'list every hop',
						onclick: () => { all = true; render(); } }, '… ' + (hops.length - 1 - SHOWN) + ' hops'), '', '', ''] });
				return;
			}
			rows.push({ cells: [
				el('span', { class: 'chip', title: 'show it in the timeline', onclick: () => show(i) }, at(x.last_ns)),
				who(x), made(x, x.v_first, x.v_last),
				i ? fmt(x.waited_ns) : (x.kind === 'pretrace' ? 'root: there before the recording' :
					x.kind === 'external' ? 'root: read from outside' : 'root: no traced input'),
				i ? fmt(x.in_process_ns) : '' ] });
			for (const o of x.other_inputs)
				rows.push({ cls: 'muted', cells: ['', '', 'other input ' + made(o, o.version, o.version) +
					(o.pid !== null ? ' (pid ' + o.pid + ')' : ''), 'ready ' + fmt(o.slack_ns) + ' before', ''] });
		});
		return rows;
	};
	const render = () => tableBox.replaceChildren(table(['at (s)', 'process', 'made', 'waited', 'in process'], rowsOf(),
		[false, false, false, true, true]));
	box.append(tableBox);
	render();
	const shares = R.shares.filter((s) => s.in_process_ns > 0).slice(0, 5)
		.map((s) => s.comm + '/' + s.pid + ' ' + (100 * s.share).toFixed(1) + ' %');
	para('Time: ' + (shares.length ? shares.join(', ') + '; ' : '') + (100 * R.waiting_share).toFixed(1) +
		' % waiting to be read.' + (R.renames_left_out ? ' ' + R.renames_left_out + ' rename(s) of the targets are ' +
		'not in the path: the recorder does not give the renamed file\'s inode.' : '') +
		(R.approximate ? ' The recording lost events: the matching of reads to writes in pipes and sockets is approximate.' : ''));
	return { hops: hops.length, target: last.object, show: (i) => { show(i); return shown; } };
}

return { section };
})();
