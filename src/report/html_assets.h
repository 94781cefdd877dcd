/*
 * The page's CSS, body skeleton and JavaScript, generated from
 * src/report/html.css, src/report/html_body.html and src/report/html.js
 * into src/report/html_assets.c by scripts/gen-html-assets.sh (run it after
 * editing them; tests/unit/report/test_report_html.c checks that it was).
 */
#ifndef QT_REPORT_HTML_ASSETS_H
#define QT_REPORT_HTML_ASSETS_H

extern const char report_html_css[];
extern const char report_html_body[];
extern const char report_html_js[];

#endif
