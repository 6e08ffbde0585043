/** The page's stylesheet: readable on a phone, printable, and colour never the only carrier of meaning. */
export const STYLE = `
:root { --fg: #1b1b1b; --muted: #5c5c5c; --line: #d0d0d0; --bg-alt: #f4f4f4;
  --error: #b3261e; --warning: #8a5300; --info: #0b5cad;
  --uninitialized: #f0e442; --unhealthy: #d55e00; --do-not-disrupt: #e69f00; --pdb: #cc79a7;
  --nominated: #56b4e9; --budget: #0072b2; --none: #8c8c8c; }
* { box-sizing: border-box; }
[hidden] { display: none !important; }
body { margin: 0 auto; max-width: 72rem; padding: 1rem; color: var(--fg); background: #fff;
  font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; overflow-wrap: anywhere; }
h1 { font-size: 1.5rem; margin: 0 0 .25rem; }
h2 { font-size: 1.25rem; margin: 2rem 0 .5rem; border-bottom: 1px solid var(--line); }
h3 { font-size: 1rem; margin: 0 0 .4rem; }
h4 { font-size: .85rem; margin: .6rem 0 .2rem; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); }
code, pre, cite { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .88em; }
cite { font-style: normal; color: var(--muted); }
pre { white-space: pre-wrap; background: var(--bg-alt); padding: .5rem .75rem; margin: 0; border-radius: 4px; }
nav a { margin-right: 1rem; }
#summary dl { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; margin: .75rem 0; }
#summary dt { font-weight: 600; }
#summary dd { margin: 0; }
#summary ul { margin: 0; padding-left: 1.2rem; }
.notes li { color: var(--muted); }
details { margin: .4rem 0; }
summary { cursor: pointer; font-weight: 600; }
.filters { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: center; padding: .5rem 0; }
.filters select { max-width: 16rem; }
.filters output { font-weight: 600; }
article.finding { border: 1px solid var(--line); border-left: 6px solid var(--line); border-radius: 4px; padding: .75rem 1rem; margin: .75rem 0; break-inside: avoid; }
article.finding[data-severity="error"] { border-left-color: var(--error); }
article.finding[data-severity="warning"] { border-left-color: var(--warning); }
article.finding[data-severity="info"] { border-left-color: var(--info); }
.severity { font-weight: 700; text-transform: uppercase; font-size: .8rem; }
.severity.error { color: var(--error); }
.severity.warning { color: var(--warning); }
.severity.info { color: var(--info); }
.message { margin: .2rem 0; }
.pools, .related { color: var(--muted); margin: .3rem 0; font-size: .9rem; }
ul.evidence { margin: 0; padding-left: 1.2rem; }
ul.evidence li { margin: .15rem 0; }
ul.evidence .note { color: var(--muted); }
figure { margin: 1rem 0; break-inside: avoid; }
figcaption { font-weight: 600; margin-bottom: .25rem; }
svg { max-width: 100%; height: auto; font-size: 12px; }
figure.nodepool svg { max-width: 44rem; }
svg text { fill: var(--fg); }
svg text.label, svg text.pct { font-size: 10px; fill: var(--muted); }
rect.track { fill: var(--bg-alt); stroke: var(--line); }
g.node:focus { outline: 2px solid var(--info); }
.legend { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: .3rem 1.2rem; font-size: .9rem; }
.legend svg { vertical-align: -2px; }
[data-blocker] .bar { stroke: #444; stroke-width: .5; }
[data-blocker="uninitialized"] .bar { fill: var(--uninitialized); }
[data-blocker="unhealthy"] .bar { fill: var(--unhealthy); }
[data-blocker="do-not-disrupt"] .bar { fill: var(--do-not-disrupt); }
[data-blocker="pdb"] .bar { fill: var(--pdb); }
[data-blocker="nominated"] .bar { fill: var(--nominated); }
[data-blocker="budget"] .bar { fill: var(--budget); }
[data-blocker="none"] .bar { fill: var(--none); }
.change { font-weight: 700; text-transform: uppercase; font-size: .75rem; border: 1px solid currentColor; border-radius: 3px; padding: 0 .25rem; }
.change.introduced { color: var(--error); }
.change.resolved { color: #1e7b34; }
.change.unchanged { color: var(--muted); }
article.finding[data-change="resolved"] { opacity: .8; }
#change table { border-collapse: collapse; margin: .5rem 0; }
#change th, #change td { border: 1px solid var(--line); padding: .2rem .5rem; text-align: left; vertical-align: top; }
footer { margin-top: 2rem; color: var(--muted); font-size: .85rem; }
@media (max-width: 40rem) {
  body { padding: .5rem; font-size: 14px; }
  #summary dl { grid-template-columns: 1fr; }
  #summary dd { margin-bottom: .4rem; }
  .filters { display: grid; grid-template-columns: max-content minmax(0, 1fr); }
  .filters select { width: 100%; max-width: none; }
  .filters output { grid-column: 1 / -1; }
}
@media print {
  body { max-width: none; padding: 0; font-size: 11pt; }
  nav, .filters { display: none; }
  a { color: inherit; text-decoration: none; }
  * { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
  h2 { break-after: avoid; }
}
`;
