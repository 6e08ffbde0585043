/**
 * `--format html`: one self-contained page (inline style and script, no request of any kind) for a ticket attachment:
 * the summary, the findings with filters, every node's requests coloured by its first blocker, the disruption budgets.
 * The DOM is a contract the browser test and the charts write against (BRIEF: "DOM contract of the HTML report").
 */
import type { Snapshot } from '../../snapshot/snapshot.js';
import type { ReportContext, ScanReport } from '../report.js';
import { nodeVerdicts } from './blockers.js';
import { budgetFigures } from './budget-chart.js';
import { findingsSection } from './findings.js';
import { nodesSection } from './node-bars.js';
import { page } from './page.js';

export function renderHtml(report: ScanReport, ctx: ReportContext, snapshot: Snapshot): string {
  const referenceMs = snapshot.referenceTime.ms;
  return page(report, ctx, [
    findingsSection(report.findings, snapshot, referenceMs),
    nodesSection(snapshot, nodeVerdicts(report.findings, ctx)),
    '<section id="budgets" aria-labelledby="budgets-title">',
    '<h2 id="budgets-title">Disruption budgets over the next 24 hours</h2>',
    budgetFigures(snapshot, referenceMs) || '<p>No NodePool budgets to draw.</p>',
    '</section>',
  ]);
}
