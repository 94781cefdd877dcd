// Reads a file of `qostrace export --perfetto` with the trace engine of the
// Chrome DevTools performance panel (@paulirish/trace_engine, the code
// DevTools and Lighthouse use to load trace-event JSON) and prints, as one
// JSON line, what that consumer made of it: processes and threads with
// their names, the slices of each thread (its "entries") and the depth of
// their tree, the flows it could bind to slices at both ends, the time
// bounds, and its warnings. Exit 1 when the engine throws or warns.
//
//   node perfetto_check.mjs OUT.json
import fs from 'node:fs';
import * as Trace from '@paulirish/trace_engine';
import { polyfillDOMRect } from '@paulirish/trace_engine/analyze-trace.mjs';

const file = process.argv[2];
if (!file) {
	console.error('usage: node perfetto_check.mjs OUT.json');
	process.exit(2);
}
polyfillDOMRect();	// the engine expects a browser's DOMRect

const t0 = Date.now();
const doc = JSON.parse(fs.readFileSync(file, 'utf8'));
const events = doc.traceEvents;
const model = Trace.TraceModel.Model.createWithAllHandlers();
await model.parse(events);
const data = model.parsedTrace().data;
const out = { file, parse_ms: 0, events: events.length };
out.parse_ms = Date.now() - t0;

let threads = 0, named = 0, entries = 0, maxDepth = 0, roots = 0;
const names = {};
for (const [pid, proc] of data.Renderer.processes) {
	for (const [tid, th] of proc.threads) {
		threads++;
		if (th.name) named++;
		entries += th.entries.length;
		roots += th.tree ? th.tree.roots.size : 0;
		maxDepth = Math.max(maxDepth, th.tree ? th.tree.maxDepth : 0);
		if (th.name && th.entries.length) names[`${pid}/${tid}`] = th.name;
	}
}
out.processes = data.Renderer.processes.size;
out.threads = threads;
out.named_threads = named;
out.entries = entries;
out.tree_roots = roots;
out.max_depth = maxDepth;
out.flows = data.Flows.flows.length;
// A flow binds an event on each side: the kinds of its ends, in time order.
const ends = {};
for (const f0 of data.Flows.flows) {
	const f = [...f0].sort((a, b) => a.ts - b.ts);
	const k = f[0].name.split(/[ :]/)[0] + ' -> ' + f[f.length - 1].name.split(/[ :]/)[0];
	ends[k] = (ends[k] || 0) + 1;
}
out.flow_ends = ends;
out.bounds_us = data.Meta.traceBounds;
out.warnings = [...data.Warnings.perWarning.keys()];
out.sample_threads = Object.entries(names).slice(0, 8);
console.log(JSON.stringify(out));
process.exit(out.warnings.length ? 1 : 0);
