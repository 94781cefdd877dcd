// Loads a page of `qostrace report --html` in headless Chromium (Debian's
// /usr/bin/chromium, driven by playwright-core; no browser is downloaded)
// and checks it the way a person would see it: it renders without console
// errors or network requests, draws lanes, breaks where the analysis found
// some, zooms with the wheel, shows a tooltip on hover. Saves screenshots.
//
//   node html_check.mjs PAGE.html OUT_DIR [--expect-breaks] [--expect-critical]
//                       [--min-lanes N] [--expect-diagnosis TEXT_FILE]
//                       [--expect-durations FILE] [--expect-progress] [--expect-dataflow]
//                       [--chromium PATH]
//
// --expect-diagnosis: the Diagnosis the page shows at its top must read as
// TEXT_FILE does (the text report's Diagnosis section, without its title;
// white space aside), word for word.
// --expect-durations: FILE has lines "NS TEXT", TEXT as the C report writes
// the duration NS; the page must write each one the same.
// --expect-progress: the two-thread progress graph is drawn (progress.png),
// its steady cycle and departures zoom it, and a ray under the pointer
// says what it is.
// --expect-dataflow: the data-flow path is listed (dataflow.png), its target
// named, and a hop's chip moves the timeline to the hop.
//
// Prints one JSON line of measurements; exit 0 when every check passed,
// 1 when one failed (the reasons on stderr), 77 when Chromium is missing.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium } from 'playwright-core';

const args = process.argv.slice(2);
const opt = (name) => args.includes(name);
const val = (name, dflt) => (args.includes(name) ? args[args.indexOf(name) + 1] : dflt);
const [page_path, out_dir] = args.filter((a, i) => !a.startsWith('--') && !(i > 0 && args[i - 1].startsWith('--') &&
	['--min-lanes', '--chromium', '--expect-diagnosis', '--expect-durations'].includes(args[i - 1])));
if (!page_path || !out_dir) {
	console.error('usage: node html_check.mjs PAGE.html OUT_DIR [--expect-breaks] [--expect-critical] [--min-lanes N]');
	process.exit(2);
}
const exe = val('--chromium', '/usr/bin/chromium');
if (!fs.existsSync(exe)) {
	console.error(`SKIPPED: ${exe} is missing (apt-get install chromium, or scripts/install-deps.sh --views)`);
	process.exit(77);
}
fs.mkdirSync(out_dir, { recursive: true });

const failures = [];
const check = (ok, what) => { if (!ok) failures.push(what); return ok; };
const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'qostrace-chromium-'));
const result = { page: page_path, bytes: fs.statSync(page_path).size };
let ctx;

try {
	ctx = await chromium.launchPersistentContext(profile, {
		executablePath: exe,
		headless: true,
		viewport: { width: 1400, height: 900 },
		args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking',
			'--disable-component-update', '--disable-sync', '--no-first-run'],
	});
	const page = ctx.pages()[0] || await ctx.newPage();
	const errors = [], requests = [];
	page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
	page.on('pageerror', (e) => errors.push(String(e)));
	page.on('request', (r) => { if (!/^(file|data|about):/.test(r.url())) requests.push(r.url()); });

	const t0 = Date.now();
	await page.goto('file://' + path.resolve(page_path), { waitUntil: 'load', timeout: 120000 });
	await page.waitForFunction(() => window.qostrace && window.qostrace.ready, null, { timeout: 120000 });
	result.load_ms = Date.now() - t0;
	const q = await page.evaluate(() => ({ timing: qostrace.timing, counts: qostrace.counts, stats: qostrace.stats() }));
	result.timing = q.timing;
	result.counts = q.counts;
	result.whole = q.stats;
	await page.screenshot({ path: path.join(out_dir, 'page.png'), fullPage: true });
	await page.locator('#timeline').screenshot({ path: path.join(out_dir, 'timeline.png') });

	const min_lanes = Number(val('--min-lanes', '1'));
	check(q.counts.lanes >= min_lanes, `${q.counts.lanes} lanes, expected at least ${min_lanes}`);
	check(q.stats.lanes >= Math.min(min_lanes, q.counts.lanes), `${q.stats.lanes} lanes drawn`);
	check(q.stats.runs + q.stats.columns > 0, 'no run interval drawn');
	if (opt('--expect-breaks')) {
		check(q.counts.breaks > 0, 'the page has no period breaks');
		check(q.stats.breaks > 0, 'no break drawn in the whole view');
	}
	if (opt('--expect-critical'))
		check(q.counts.critical > 0 && q.stats.critical > 0, 'no critical task drawn');

	// The Diagnosis at the top: there whenever the report has one, and visible.
	const diag = await page.evaluate(() => {
		const d = document.getElementById('diagnosis'), r = JSON.parse(document.getElementById('qt-report').textContent);
		return { has: !!r.diagnosis, text: d ? d.innerText : null, shown: !!d && d.getBoundingClientRect().height > 0,
			bold: d ? d.querySelectorAll('b').length : 0 };
	});
	result.diagnosis = diag.text;
	check(!diag.has || (diag.text && diag.shown), 'the report has a diagnosis, the page does not show it');
	if (opt('--expect-diagnosis')) {
		const norm = (x) => x.replace(/\s+/g, ' ').trim();
		const want = norm(fs.readFileSync(val('--expect-diagnosis'), 'utf8'));
		check(want.length > 0, 'the expected diagnosis is empty');
		check(norm(diag.text || '') === want, `the page's diagnosis reads\n  ${norm(diag.text || '')}\nnot\n  ${want}`);
		if (want.startsWith('1. '))
			check(diag.bold > 0, 'the upstream actor is not in bold');
	}
	if (opt('--expect-durations')) {
		const pairs = fs.readFileSync(val('--expect-durations'), 'utf8').split('\n').filter((l) => l)
			.map((l) => [Number(l.slice(0, l.indexOf(' '))), l.slice(l.indexOf(' ') + 1)]);
		const bad = await page.evaluate((v) => v.filter(([ns, want]) => qostrace.fmtDuration(ns) !== want)
			.map(([ns, want]) => `${ns}: ${qostrace.fmtDuration(ns)}, not ${want}`), pairs);
		result.durations = pairs.length;
		check(pairs.length > 0, 'no durations to compare');
		check(bad.length === 0, `durations written otherwise than in C: ${bad.slice(0, 10).join('; ')}`);
	}

	// The wheel over the timeline zooms in around the pointer.
	const box = await page.locator('#tl').boundingBox();
	const before = await page.evaluate(() => qostrace.view());
	await page.mouse.move(box.x + box.width * 0.6, box.y + 60);
	for (let i = 0; i < 5; i++) await page.mouse.wheel(0, -300);
	await page.waitForTimeout(100);
	const after = await page.evaluate(() => qostrace.view());
	result.wheel_view = after;
	check(after[1] - after[0] < (before[1] - before[0]) * 0.5, `the wheel did not zoom in: ${before} -> ${after}`);
	// Dragging pans.
	await page.mouse.move(box.x + box.width * 0.6, box.y + 60);
	await page.mouse.down();
	await page.mouse.move(box.x + box.width * 0.4, box.y + 60, { steps: 4 });
	await page.mouse.up();
	await page.waitForTimeout(50);
	const panned = await page.evaluate(() => qostrace.view());
	check(panned[0] > after[0] || after[0] + (after[1] - after[0]) >= q.stats.view[1] - 1, `dragging did not pan: ${after} -> ${panned}`);

	// Draw times: the whole recording, then windows 10x, 100x, ... smaller.
	result.zoom = await page.evaluate(() => {
		const b = qostrace.zoom(0, 1e18).view[1];
		const out = [];
		for (let span = b; span >= 2000; span /= 10) {
			const mid = b / 2;
			const t = performance.now();
			const s = qostrace.zoom(mid - span / 2, mid + span / 2);
			out.push({ span_ns: Math.round(span), ms: +(performance.now() - t).toFixed(2),
				exact_lanes: s.exactLanes, aggregated_lanes: s.aggregatedLanes, runs: s.runs, columns: s.columns });
		}
		qostrace.zoom(0, b);
		return out;
	});
	check(result.zoom.length > 1 && result.zoom[result.zoom.length - 1].exact_lanes > 0,
		'zoomed in, no lane is drawn with exact intervals');

	// The first break, as a click on its chip in the actor table shows it.
	if (q.counts.breaks > 0) {
		const chip = page.locator('.chip').first();
		await chip.click();
		await page.waitForTimeout(100);
		const s = await page.evaluate(() => qostrace.stats());
		result.at_break = s;
		check(s.breaks > 0 && s.exactLanes > 0, 'zoomed to a break, it is not drawn with exact intervals');
		await page.locator('#timeline').screenshot({ path: path.join(out_dir, 'break.png') });
		// Hover over the upstream lane at the middle of the view: a tooltip.
		const lane = await page.evaluate(() => {
			const r = document.getElementById('tl').getBoundingClientRect();
			return { x: r.left + 200 + (r.width - 200) / 2, y: r.top + 30 + 15 };
		});
		await page.mouse.move(lane.x, lane.y);
		await page.waitForTimeout(50);
		const tip = await page.evaluate(() => { const t = document.getElementById('tip'); return t.hidden ? '' : t.textContent; });
		result.tooltip = tip;
		check(tip.includes('tid'), `no tooltip over the first lane (got '${tip}')`);
	} else {
		const lane = await page.evaluate(() => {
			const r = document.getElementById('tl').getBoundingClientRect();
			return { x: r.left + 200 + (r.width - 200) / 2, y: r.top + 30 + 9 };
		});
		await page.mouse.move(lane.x, lane.y);
		await page.waitForTimeout(50);
		result.tooltip = await page.evaluate(() => { const t = document.getElementById('tip'); return t.hidden ? '' : t.textContent; });
		check(result.tooltip.length > 0, 'no tooltip over the first lane');
	}
	if (opt('--expect-progress')) {
		const pg = await page.evaluate(() => { const p = qostrace.progress(); return p && { rays: p.rays, deps: p.departures, drawn: p.drawn() }; });
		result.progress = pg;
		if (check(pg && pg.rays > 0, 'no progress graph on the page')) {
			await page.locator('#progress').scrollIntoViewIfNeeded();
			const cyc = page.locator('#progress button', { hasText: 'cycle' });
			if (await cyc.count()) await cyc.click();
			const shown = await page.evaluate(() => {
				const p = qostrace.progress();
				for (let i = 0; i < p.rays; i++) { const r = p.rayPoint(i); if (r.shown) return Object.assign(r, { i }); }
				return null;
			});
			check(shown !== null && (await page.evaluate(() => qostrace.progress().drawn())) > 0, 'the progress graph draws no ray');
			if (shown) {
				/* the canvas itself in the viewport: the section with its table may be taller */
				await page.locator('#pg').scrollIntoViewIfNeeded();
				const cb = await page.locator('#pg').boundingBox();
				await page.mouse.move(cb.x + shown.x, cb.y + shown.y);
				await page.waitForTimeout(50);
				const tip = await page.evaluate(() => { const t = document.querySelector('.pg-tip'); return t.hidden ? '' : t.textContent; });
				result.progress_tooltip = tip;
				check(/both run|waits for|exited|neither/.test(tip), `no tooltip over a ${shown.kind} ray of the progress graph (got '${tip}')`);
			}
			await page.locator('#progress').screenshot({ path: path.join(out_dir, 'progress.png') });
			if (pg.deps > 0) {
				const before_v = await page.evaluate(() => qostrace.progress().view());
				await page.locator('#progress .chip').first().click();
				await page.waitForTimeout(50);
				const after_v = await page.evaluate(() => qostrace.progress().view());
				check(JSON.stringify(before_v) !== JSON.stringify(after_v), 'clicking a departure does not move the progress graph');
				check((await page.evaluate(() => qostrace.progress().drawn())) > 0, 'a departure shows no ray');
			}
		}
	}
	if (opt('--expect-dataflow')) {
		const df = await page.evaluate(() => { const d = qostrace.dataflow(); return d && { hops: d.hops, target: d.target }; });
		result.dataflow = df;
		if (check(df && df.hops >= 2, 'no data-flow path on the page')) {
			const text = await page.locator('#dataflow').textContent();
			check(text.includes(df.target), `the data path section does not name its target ${df.target}`);
			await page.locator('#dataflow').scrollIntoViewIfNeeded();
			const before_v = await page.evaluate(() => qostrace.view());
			await page.locator('#dataflow .chip').last().click();
			await page.waitForTimeout(50);
			const after_v = await page.evaluate(() => qostrace.view());
			check(JSON.stringify(before_v) !== JSON.stringify(after_v), 'clicking a hop does not move the timeline');
			check(after_v[1] - after_v[0] < before_v[1] - before_v[0], 'clicking a hop does not zoom into it');
			await page.locator('#dataflow').screenshot({ path: path.join(out_dir, 'dataflow.png') });
		}
	}
	check(errors.length === 0, `console errors: ${errors.join(' | ')}`);
	check(requests.length === 0, `network requests: ${requests.join(' ')}`);
	result.console_errors = errors;
} catch (e) {
	failures.push('exception: ' + (e && e.stack || e));
} finally {
	if (ctx) await ctx.close();
	fs.rmSync(profile, { recursive: true, force: true });
}
result.failures = failures;
console.log(JSON.stringify(result));
for (const f of failures) console.error('FAIL: ' + f);
process.exit(failures.length ? 1 : 0);
