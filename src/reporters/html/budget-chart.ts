/**
 * Per NodePool, its disruption budget over the next 24 hours: for each UTC clock hour from the reference time's, the
 * disruptions its budgets allow per reason (one row per reason when a budget names reasons, else one for all), and
 * the nodes that consume the budget now (Ready ≠ True or being deleted: Karpenter subtracts them silently). The
 * arithmetic is the snapshot's budgets view, the same the budget rules use; this file only draws it.
 */
import { atLeastIn, versionLabel } from '../../kube/version.js';
import { nameOf } from '../../kube/fields.js';
import { budgetForecast, hasBudgets, nodesByPool, type BudgetForecast, type BudgetHour, type BudgetRow, type PoolNodes } from '../../snapshot/budgets.js';
import type { Budget, NodePoolView } from '../../snapshot/karpenter.js';
import type { Snapshot } from '../../snapshot/snapshot.js';
import { attrs, esc } from './escape.js';
import { capped, isoTime, text, title, utcClock, utcDay } from './svg.js';

const HOURS = 24;
const LABEL_W = 112;
const CELL_W = 30;
const ROW_H = 24;
const TOP = 22;
const WIDTH = LABEL_W + HOURS * CELL_W + 8;

const FILL = { zero: '#c0392b', some: '#2f6fb0', unlimited: '#dcebd5', unknown: '#c8c8c8', inUse: '#e67e22', idle: '#eeeeee' };

/** `<figure class="budget" data-nodepool="…">` elements, one per NodePool, as inline SVG; '' when there are none. */
export function budgetFigures(snapshot: Snapshot, referenceMs: number): string {
  const pools = snapshot
    .nodePools()
    .filter(hasBudgets)
    .sort((a, b) => a.name.localeCompare(b.name));
  if (!pools.length) return '';
  const version = snapshot.controller.version;
  // Budgets arrived in v0.34.0: before that the field does not exist and nothing limits disruption by count.
  if (atLeastIn(version, '0.34.0', snapshot.controller.versionSeries) === false) {
    return pools
      .map((p) =>
        figure(
          p,
          `<p class="note">${esc(`Karpenter v${versionLabel(version!, snapshot.controller.versionSeries)} predates disruption budgets (v0.34.0).`)}</p>`,
        ),
      )
      .join('\n');
  }
  const byPool = snapshot.has('Node') ? nodesByPool(snapshot) : undefined;
  return pools
    .map((pool) => {
      if (!snapshot.isKnown(pool.object, pool.budgets.path)) {
        return figure(pool, `<p class="note">${esc(`${snapshot.partialFrom(pool.object)} does not show spec.disruption.budgets.`)}</p>`);
      }
      const nodes = byPool ? (byPool.get(pool.name) ?? { counted: [], disrupting: [] }) : undefined;
      return figure(pool, chart(pool, nodes, referenceMs));
    })
    .join('\n');
}

function figure(pool: NodePoolView, body: string): string {
  const caption = `NodePool ${pool.name}: disruptions its budgets allow, hour by hour over the next 24 hours (UTC)`;
  return `<figure${attrs({ class: 'budget', 'data-nodepool': pool.name })}><figcaption>${esc(caption)}</figcaption>${body}</figure>`;
}

function chart(pool: NodePoolView, nodes: PoolNodes | undefined, referenceMs: number): string {
  const total = nodes?.counted.length;
  const forecast = budgetForecast(pool, total, referenceMs, HOURS);
  const inUse = nodes?.disrupting.length;
  const gridBottom = TOP + (forecast.rows.length + 1) * ROW_H;
  const height = gridBottom + 44;
  const parts: string[] = [];
  parts.push(dayLabels(forecast.rows[0]!.hours));
  forecast.rows.forEach((row, r) => {
    const y = TOP + r * ROW_H;
    parts.push(text(LABEL_W - 6, y + ROW_H / 2 + 4, row.reason === 'all' ? 'all reasons' : row.reason, { 'text-anchor': 'end' }));
    row.hours.forEach((hour, h) => parts.push(cell(pool, row.reason, hour, h, y, h === 0 ? inUse : undefined, referenceMs)));
  });
  parts.push(inUseLane(nodes, TOP + forecast.rows.length * ROW_H));
  parts.push(hourAxis(forecast.rows[0]!.hours, gridBottom));
  parts.push(legend(gridBottom + 34));
  const label = `Disruption budget of NodePool ${pool.name} over the next 24 hours`;
  const svg =
    `<svg${attrs({ class: 'budget-chart', xmlns: 'http://www.w3.org/2000/svg', viewBox: `0 0 ${WIDTH} ${height}`, width: WIDTH, height, role: 'img', 'aria-label': label, 'font-family': 'sans-serif', 'font-size': 11 })}>` +
    `${parts.join('')}</svg>`;
  return svg + notes(pool, forecast, total, inUse);
}

function cell(pool: NodePoolView, reason: BudgetRow, hour: BudgetHour, h: number, y: number, inUse: number | undefined, referenceMs: number): string {
  const x = LABEL_W + h * CELL_W;
  const a = hour.allowed;
  const fill = a === undefined ? FILL.unknown : a === Infinity ? FILL.unlimited : a === 0 ? FILL.zero : FILL.some;
  const usedUp = inUse !== undefined && inUse > 0 && a !== undefined && a > 0 && a !== Infinity && a - inUse <= 0;
  const from = h === 0 ? `${utcClock(referenceMs)} (the reference time)` : `${utcClock(hour.start)}`;
  const lines = [
    `NodePool ${pool.name}, ${reason === 'all' ? 'every reason' : reason}: ${utcDay(hour.start)} ${from} to ${utcClock(hour.end)} UTC`,
    a === undefined
      ? 'allowed: unknown (a percentage of the node count, which the input does not show)'
      : a === Infinity
        ? 'allowed: no limit (no active budget restricts it)'
        : `allowed: ${a} ${a === 1 ? 'disruption' : 'disruptions'} at once`,
    ...(h === 0 && inUse !== undefined && a !== undefined && a !== Infinity && inUse > 0
      ? [`now: ${inUse} disrupting ${inUse === 1 ? 'node uses' : 'nodes use'} the budget, ${Math.max(a - inUse, 0)} left`]
      : []),
    ...hour.active.map((i) => `budget ${i}: ${describe(pool.budgets.value[i]!)}`),
  ];
  const rect = `<rect${attrs({
    class: 'allowed',
    'data-reason': reason,
    'data-hour': new Date(hour.start).getUTCHours(),
    'data-allowed': a === undefined ? 'unknown' : a === Infinity ? 'unlimited' : a,
    'data-start': isoTime(hour.start),
    x: x + 1,
    y: y + 1,
    width: CELL_W - 2,
    height: ROW_H - 2,
    fill,
    ...(usedUp ? { stroke: FILL.inUse, 'stroke-width': 3 } : {}),
  })}>${title(lines)}</rect>`;
  const label = a === undefined ? '?' : a === Infinity ? '∞' : String(a);
  const ink = a === undefined || a === Infinity ? '#333333' : '#ffffff';
  return rect + text(x + CELL_W / 2, y + ROW_H / 2 + 4, label, { 'text-anchor': 'middle', fill: ink, 'pointer-events': 'none' });
}

function inUseLane(nodes: PoolNodes | undefined, y: number): string {
  const count = nodes?.disrupting.length;
  const lines =
    nodes === undefined
      ? ['in use now: unknown (no Nodes in the input)']
      : [
          `in use now: ${count} of ${nodes.counted.length} counted ${nodes.counted.length === 1 ? 'node is' : 'nodes are'} disrupting (Ready ≠ True or being deleted)`,
          ...capped(
            nodes.disrupting.map(
              (n) =>
                `${nameOf(n.node)}: ${n.deleting ? `being deleted since ${n.deletingSince ?? '?'}` : `Ready=${n.ready}${n.readySince ? ` since ${n.readySince}` : ''}`}`,
            ),
            12,
          ),
        ];
  const rect = `<rect${attrs({
    class: 'in-use',
    'data-count': count ?? 'unknown',
    x: LABEL_W + 1,
    y: y + 1,
    width: CELL_W - 2,
    height: ROW_H - 2,
    fill: count ? FILL.inUse : FILL.idle,
  })}>${title(lines)}</rect>`;
  return (
    text(LABEL_W - 6, y + ROW_H / 2 + 4, 'in use now', { 'text-anchor': 'end' }) +
    rect +
    text(LABEL_W + CELL_W / 2, y + ROW_H / 2 + 4, count === undefined ? '?' : String(count), {
      'text-anchor': 'middle',
      fill: count ? '#ffffff' : '#333333',
      'pointer-events': 'none',
    })
  );
}

/** The day above the first column and above every midnight the chart crosses. */
function dayLabels(hours: readonly BudgetHour[]): string {
  return hours
    .map((hour, h) =>
      h === 0 || new Date(hour.start).getUTCHours() === 0 ? text(LABEL_W + h * CELL_W + 2, TOP - 8, utcDay(hour.start), { class: 'day' }) : '',
    )
    .join('');
}

function hourAxis(hours: readonly BudgetHour[], y: number): string {
  const ticks = hours.map((hour, h) =>
    text(LABEL_W + h * CELL_W + CELL_W / 2, y + 12, String(new Date(hour.start).getUTCHours()).padStart(2, '0'), { 'text-anchor': 'middle', class: 'hour' }),
  );
  return `<g class="axis">${ticks.join('')}${text(LABEL_W - 6, y + 12, 'hour (UTC)', { 'text-anchor': 'end' })}</g>`;
}

function legend(y: number): string {
  const items: Array<[string, string]> = [
    [FILL.zero, '0: no disruption'],
    [FILL.some, 'N at once'],
    [FILL.unlimited, 'no active budget'],
    [FILL.unknown, 'unknown'],
    [FILL.inUse, 'in use now (outlined: used up)'],
  ];
  let x = LABEL_W;
  const out = items.map(([fill, label]) => {
    const s = `<rect${attrs({ x, y: y - 9, width: 10, height: 10, fill })}/>${text(x + 14, y, label)}`;
    x += 30 + label.length * 7; // room for wider page fonts, which override the SVG font-size
    return s;
  });
  return `<g class="legend">${out.join('')}</g>`;
}

function notes(pool: NodePoolView, forecast: BudgetForecast, total: number | undefined, inUse: number | undefined): string {
  const lines = [
    total === undefined
      ? 'The input has no Nodes: percentages of the pool cannot be computed (shown as ?).'
      : total === 0
        ? 'The pool has no counted nodes now: a percentage of none is 0, and there is nothing to disrupt.'
        : `Percentages are of the ${total} ${total === 1 ? 'node' : 'nodes'} counted now (managed, initialized, not terminating), rounded up; later hours assume that count.`,
    ...(pool.budgets.defaulted ? ['No budgets set: Karpenter applies its default, nodes "10%".'] : []),
    ...(pool.generation !== 'v1' ? [`A ${pool.generation} NodePool's budgets apply to every reason.`] : []),
    ...forecast.errors.map((e) => `Budget ${e.index} fails closed (0 while active): ${e.error}.`),
    ...(inUse
      ? [
          `Now ${inUse} disrupting ${inUse === 1 ? 'node uses' : 'nodes use'} the budget (Karpenter subtracts ${inUse === 1 ? 'it' : 'them'} silently): ${leftNow(forecast, inUse)}.`,
        ]
      : []),
  ];
  return `<ul class="notes">${lines.map((l) => `<li>${esc(l)}</li>`).join('')}</ul>`;
}

/** What the budgets still allow this hour once the disrupting nodes are subtracted, per row. */
function leftNow(forecast: BudgetForecast, inUse: number): string {
  return forecast.rows
    .map(({ reason, hours: [now] }) => {
      const a = now!.allowed;
      const left = a === undefined ? 'unknown' : a === Infinity ? 'no limit' : `${Math.max(a - inUse, 0)} left`;
      return `${left}${reason === 'all' ? '' : ` for ${reason}`}`;
    })
    .join(', ');
}

function describe(b: Budget): string {
  return [
    `nodes "${b.nodes}"`,
    ...(b.schedule !== undefined ? [`schedule "${b.schedule}" (UTC)`] : []),
    ...(b.duration !== undefined ? [`duration ${b.duration}`] : []),
    ...(b.reasons !== undefined ? [`reasons [${b.reasons.join(', ')}]`] : []),
  ].join(', ');
}
