// The dashboard's one stylesheet, served by the dashboard itself (no CDN):
// system fonts, light or dark as the system is, visible focus for the
// keyboard, and the outcome colours the chart and its legend share.
export const STYLE = `
:root { color-scheme: light dark; --bg: #fff; --fg: #1b1f24; --muted: #57606a; --line: #d0d7de; --head: #f6f8fa; --bad: #cf222e; --warn: #9a6700; --ok: #1a7f37; --link: #0550ae;
  --allow: #2da44e; --deny: #cf222e; --warn-o: #d4a72c; --audit: #8250df; --error: #57606a; --exempted: #54aeff; }
@media (prefers-color-scheme: dark) { :root { --bg: #0d1117; --fg: #e6edf3; --muted: #8d96a0; --line: #30363d; --head: #161b22; --bad: #ff7b72; --warn: #d29922; --ok: #3fb950; --link: #79c0ff; } }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg); font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; }
a { color: var(--link); }
:focus-visible { outline: 3px solid var(--link); outline-offset: 2px; }
.skip { position: absolute; left: -999px; } .skip:focus { left: 8px; top: 8px; background: var(--bg); padding: 4px; }
.sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
header { display: flex; gap: 24px; align-items: center; padding: 10px 20px; border-bottom: 1px solid var(--line); background: var(--head); flex-wrap: wrap; }
header ul { display: flex; gap: 16px; list-style: none; margin: 0; padding: 0; }
header a[aria-current="page"] { font-weight: 600; color: var(--fg); text-decoration-thickness: 2px; }
.endpoint { margin-left: auto; color: var(--muted); font-family: ui-monospace, monospace; }
main { padding: 8px 20px 40px; max-width: 1400px; }
h1 { font-size: 20px; } h2 { font-size: 16px; margin-top: 28px; } h2 small { font-weight: normal; color: var(--muted); }
.filter { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; margin: 8px 0 16px; }
input, button, .button { font: inherit; padding: 4px 8px; border: 1px solid var(--line); border-radius: 6px; background: var(--bg); color: var(--fg); }
button, .button { background: var(--head); cursor: pointer; text-decoration: none; display: inline-block; }
.cards { display: flex; gap: 12px; flex-wrap: wrap; list-style: none; padding: 0; }
.cards li { border: 1px solid var(--line); border-radius: 8px; padding: 8px 14px; } .cards b { font-size: 20px; margin-right: 4px; }
.cards .bad b, td.bad { color: var(--bad); } .cards .warn b, td.warn, p.warn { color: var(--warn); }
.badge { margin-left: 6px; padding: 0 6px; border-radius: 10px; border: 1px solid var(--bad); color: var(--bad); font-size: 12px; }
table.grid { border-collapse: collapse; width: 100%; margin: 8px 0; }
.grid caption { text-align: left; color: var(--muted); padding: 4px 0; }
.grid th, .grid td { border-bottom: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: top; }
.grid thead th { background: var(--head); position: sticky; top: 0; }
.grid td[data-outcome] { text-align: right; font-variant-numeric: tabular-nums; }
.grid tr.current { background: color-mix(in srgb, var(--ok) 12%, transparent); } .grid tr.pending { color: var(--muted); }
td.labels { font-family: ui-monospace, monospace; font-size: 12px; }
.error { color: var(--bad); } .ok { color: var(--ok); }
pre { background: var(--head); border: 1px solid var(--line); padding: 8px; overflow: auto; }
.chart { width: 100%; height: auto; max-height: 320px; }
.chart .tick line { stroke: var(--line); } .chart text { fill: var(--muted); font-size: 11px; }
.chart .marker line { stroke: var(--fg); stroke-dasharray: 4 3; } .chart .marker text { fill: var(--fg); }
.o-allow { fill: var(--allow); background: var(--allow); } .o-deny { fill: var(--deny); background: var(--deny); } .o-warn { fill: var(--warn-o); background: var(--warn-o); }
.o-audit { fill: var(--audit); background: var(--audit); } .o-error { fill: var(--error); background: var(--error); } .o-exempted { fill: var(--exempted); background: var(--exempted); }
.legend { display: flex; gap: 16px; list-style: none; padding: 0; } .swatch { display: inline-block; width: 12px; height: 12px; margin-right: 4px; border-radius: 2px; vertical-align: -1px; }
.pager { margin: 12px 0; }
`;
