/**
 * A log search's results exported as CSV or TSV with a header row: CloudWatch Logs Insights (`@timestamp,@message`),
 * Datadog (`Date,Host,Service,Message`), Grafana's Loki explore (`Time\tLine`), Kibana (`@timestamp,message`). The
 * header names the columns, in any order: each row's message becomes a record, read as the line it is (a JSON record,
 * a console line, free text), at the row's time when the message has none of its own. Decided on the header alone.
 */
import { parseLogLine } from '../logs.js';
import { readAll, type Reader } from './reader.js';

/** Column names a time or a message goes by in the exporters' headers (case and a leading `@` or `_` ignored). */
const TIME_COLUMNS = new Set(['timestamp', 'time', 'date', 'datetime', 'ts', 'eventtime', 'ingestiontime']);
const MESSAGE_COLUMNS = new Set(['message', 'msg', 'line', 'log', 'content', 'raw', 'text', 'body']);
/** Enough for any header row; a first line longer than this is no header. */
const MAX_HEADER = 2000;

export interface ExportHeader {
  delimiter: ',' | '\t';
  time: number;
  message: number;
}

const columnName = (cell: string) =>
  cell
    .trim()
    .replace(/^"(.*)"$/, '$1')
    .replace(/^[@_]/, '')
    .toLowerCase()
    .replace(/[\s_-]/g, '');

/** The header row of a log export: a message column and a time column, split on commas or tabs. */
export function exportHeader(line: string): ExportHeader | undefined {
  if (line.length > MAX_HEADER) return undefined;
  const text = line.replace(/\r$/, '');
  for (const delimiter of ['\t', ','] as const) {
    const cells = text.split(delimiter).map(columnName);
    // CloudWatch's console copy leads with its `#` row-number column.
    if (cells.length < 2 || cells.some((c) => !/^(?:[a-z0-9.]{1,40}|#)$/.test(c))) continue;
    const time = cells.findIndex((c) => TIME_COLUMNS.has(c));
    const message = cells.findIndex((c) => MESSAGE_COLUMNS.has(c));
    if (time >= 0 && message >= 0) return { delimiter, time, message };
  }
  return undefined;
}

export const logExport: Reader = {
  id: 'log-export',
  needs: 'content',
  sniff: (s) => {
    const start = s.sample.search(/\S/);
    if (start < 0) return 0;
    const end = s.sample.indexOf('\n', start);
    return exportHeader(s.sample.slice(start, end < 0 ? undefined : end)) ? 1 : 0;
  },
  read: async ({ file, chunks }, sink) => {
    const text = await readAll(chunks);
    const rows = csvRows(text);
    const headerAt = rows.findIndex((r) => r.cells.some((c) => c.trim() !== ''));
    const header = headerAt < 0 ? undefined : exportHeader(rows[headerAt]!.raw);
    if (!header) return 'loaded';
    for (const row of csvRows(text, header.delimiter).slice(headerAt + 1)) {
      const message = row.cells[header.message];
      if (message === undefined || message.trim() === '') continue;
      // A multi-line message (a stack trace under a record) is read by its first line.
      const first = message.trim().split('\n', 1)[0]!;
      const time = rowTime(row.cells[header.time]);
      const record = readRow(time, first, row.line, file.displayPath);
      if (record) sink.logs.push(record);
      else sink.skipped.push({ source: file.displayPath, line: row.line, reason: 'a row of a log export whose message is no log record' });
    }
    return 'loaded';
  },
};

/**
 * The row as the line its time and message make: after a space the message is a collector's (a JSON record, free
 * text); after a tab, a console line's fields (level, logger, message). The reading that finds a level wins.
 */
function readRow(time: string | undefined, message: string, line: number, source: string) {
  if (!time) return parseLogLine(message, line, { source });
  const spaced = parseLogLine(`${time} ${message}`, line, { source });
  if (spaced?.level) return spaced;
  const tabbed = parseLogLine(`${time}\t${message}`, line, { source });
  return tabbed?.level ? tabbed : spaced;
}

/** An exporter's time: as written when it is a date and time, epoch seconds to nanoseconds as ISO. */
function rowTime(cell: string | undefined): string | undefined {
  const t = cell?.trim();
  if (!t) return undefined;
  if (/^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}/.test(t)) return t.replace(/ UTC$/, 'Z');
  if (/^\d{10}(?:\d{3}(?:\d{3}(?:\d{3})?)?)?(?:\.\d+)?$/.test(t)) {
    // Nanoseconds do not fit a double: the first 13 digits are the milliseconds.
    const whole = t.split('.')[0]!;
    const ms = whole.length === 10 ? Number(t) * 1000 : Number(whole.slice(0, 13));
    return new Date(ms).toISOString();
  }
  return undefined;
}

interface Row {
  /** 1-based line the row starts at. */
  line: number;
  cells: string[];
  /** The row's first line as written (for the header). */
  raw: string;
}

/** RFC 4180 rows: quoted cells with doubled quotes, newlines inside quotes. */
function csvRows(text: string, delimiter: ',' | '\t' = ','): Row[] {
  const rows: Row[] = [];
  let line = 1;
  let i = 0;
  while (i < text.length) {
    const start = line;
    const rawEnd = text.indexOf('\n', i);
    const raw = text.slice(i, rawEnd < 0 ? undefined : rawEnd);
    const cells: string[] = [];
    let cell = '';
    let quoted = false;
    for (; i < text.length; i++) {
      const c = text[i]!;
      if (quoted) {
        if (c === '"' && text[i + 1] === '"') {
          cell += '"';
          i++;
        } else if (c === '"') quoted = false;
        else {
          if (c === '\n') line++;
          cell += c;
        }
      } else if (c === '"' && cell === '') quoted = true;
      else if (c === delimiter) {
        cells.push(cell);
        cell = '';
      } else if (c === '\n') {
        line++;
        i++;
        break;
      } else if (c !== '\r') cell += c;
    }
    cells.push(cell);
    rows.push({ line: start, cells, raw });
  }
  return rows;
}
