/** How text output looks where it goes: every command that prints for people (scan, timeline, rules, explain) asks here. */

export interface TerminalFlags {
  ascii?: boolean;
  /** false with --no-color. */
  color?: boolean;
}

export interface TerminalStyle {
  color: boolean;
  ascii: boolean;
  width: number;
}

/**
 * Colour only on a terminal, and never with NO_COLOR (no-color.org: any non-empty value) or --no-color; box drawing
 * and typographic glyphs only on a terminal either (a pipe, a file or a pasted ticket gets plain ASCII). The width is
 * the terminal's, else $COLUMNS (set by shells and CI runners that know it), else 80.
 */
export function terminalStyle(opts: TerminalFlags, toFile: boolean): TerminalStyle {
  const tty = !toFile && Boolean(process.stdout.isTTY);
  const columns = Number(process.env.COLUMNS);
  return {
    color: tty && opts.color !== false && !process.env.NO_COLOR,
    ascii: !tty || Boolean(opts.ascii),
    width: (tty ? process.stdout.columns : undefined) || (Number.isInteger(columns) && columns > 0 ? columns : 80),
  };
}
