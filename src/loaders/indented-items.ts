/**
 * The items of one range of a MarshalIndent List (split.ts), found by their lines instead of by a scan of every byte.
 * Go's MarshalIndent puts each value on lines of its own, indented four spaces per level, and a JSON string holds no
 * raw newline: a line of exactly eight spaces and `{` opens an element of the top-level `items`, the next line of
 * eight spaces and `}` closes it. Walking newlines (`indexOf`, native) and parsing each element once costs less than
 * half of the byte scanner's walk plus parse. Anything else at the list's own levels — another layout, a scalar
 * element, a line the walk does not expect, an element JSON.parse refuses or nested past the limit — makes the walk
 * give up, and the caller reads the range with the byte scanner, which says what is wrong and where.
 */
import { tooDeep } from './limits.js';

const NEWLINE = 0x0a;
const SPACE = 0x20;
const COMMA = 0x2c;
/** Far more than any list's wrapper (kind, apiVersion, metadata): past it the walk gives up. */
const MAX_WRAPPER_BYTES = 1 << 20;

const enum State {
  /** The first range only: `{` and the list's members before `"items": [`. */
  Head,
  /** Between elements: the next line opens one, or (last range) closes the items. */
  Between,
  Item,
  /** The last range only: `]` and the list's members after the items. */
  Tail,
}

/** Eight spaces and `open`, then nothing, or a comma when `comma` allows it. */
function itemLine(buf: Buffer, start: number, end: number, bracket: number, comma: boolean): boolean {
  const len = end - start;
  if (buf[start + 8] !== bracket || !(len === 9 || (comma && len === 10 && buf[start + 9] === COMMA))) return false;
  for (let i = start; i < start + 8; i++) if (buf[i] !== SPACE) return false;
  return true;
}

/**
 * Reads the items of a range; `first`/`last` say whether the range holds the list's head/tail. Returns the newlines the
 * range holds, or undefined when the range is not laid out as MarshalIndent lays out a List (then `item` may already
 * have been called for some elements: the caller discards them).
 */
export async function readIndentedItems(
  chunks: AsyncIterable<Buffer>,
  first: boolean,
  last: boolean,
  item: (value: unknown, line: number) => void,
): Promise<number | undefined> {
  let state = (first ? State.Head : State.Between) as State;
  /** After an element closed without a comma, only the end of the items may follow. */
  let closedLast = false;
  let wrapper = '';
  let buf: Buffer = Buffer.alloc(0);
  let pos = 0;
  let line = 1;
  let itemStart = -1;
  let itemLineNo = 0;

  /** One whole line [start, end); false when it is not what the layout allows here. */
  const onLine = (start: number, end: number): boolean => {
    switch (state) {
      case State.Item:
        if (end - start > 10 || !itemLine(buf, start, end, 0x7d, true)) return true;
        try {
          const value: unknown = JSON.parse(buf.toString('utf8', itemStart, start + 9));
          if (tooDeep(value)) return false;
          item(value, itemLineNo);
        } catch {
          return false;
        }
        closedLast = end - start === 9;
        state = State.Between;
        return true;
      case State.Between:
        if (!closedLast && itemLine(buf, start, end, 0x7b, false)) {
          state = State.Item;
          itemStart = start;
          itemLineNo = line;
          return true;
        }
        if (!last || !isItemsEnd(buf, start, end)) return false;
        state = State.Tail;
        wrapper = buf.toString('utf8', start, end) + '\n';
        return true;
      case State.Head:
        wrapper += buf.toString('utf8', start, end) + '\n';
        if (wrapper.length > MAX_WRAPPER_BYTES) return false;
        if (end - start === 14 && buf.toString('latin1', start, end) === '    "items": [') {
          state = State.Between;
          return isObject(`${wrapper}]}`);
        }
        return true;
      case State.Tail:
        wrapper += buf.toString('utf8', start, end) + '\n';
        return wrapper.length <= MAX_WRAPPER_BYTES;
    }
  };

  for await (const chunk of chunks) {
    const keep = state === State.Item ? itemStart : pos;
    buf = keep < buf.length ? Buffer.concat([buf.subarray(keep), chunk]) : chunk;
    pos -= keep;
    if (state === State.Item) itemStart = 0;
    for (let nl = buf.indexOf(NEWLINE, pos); nl >= 0; nl = buf.indexOf(NEWLINE, pos)) {
      if (!onLine(pos, nl)) return undefined;
      pos = nl + 1;
      line++;
    }
  }
  // The file's last line may have no newline; a range cut at an element's line always ends with one.
  if (pos < buf.length && !onLine(pos, buf.length)) return undefined;
  if (last) return state === State.Tail && isObject(`{"items":[${wrapper}`) ? line - 1 : undefined;
  return state === State.Between && !closedLast ? line - 1 : undefined;
}

/** `    ]` or `    ],`: the end of the items array. */
function isItemsEnd(buf: Buffer, start: number, end: number): boolean {
  const text = buf.toString('latin1', start, end);
  return text === '    ]' || text === '    ],';
}

function isObject(text: string): boolean {
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === 'object' && v !== null && !Array.isArray(v);
  } catch {
    return false;
  }
}
