import Table from "cli-table3";

/** A table for the terminal; plain characters (no colour codes) when stdout is not a terminal or NO_COLOR is set. */
export function createTable(head: string[], options: { colWidths?: number[]; wordWrap?: boolean } = {}) {
  const color = Boolean(process.stdout.isTTY) && !process.env.NO_COLOR;
  return new Table({ head, ...options, style: color ? {} : { head: [], border: [] } });
}
