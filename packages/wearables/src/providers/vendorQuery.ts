/**
 * The anchor's vendor knobs of `POST …/sync` and `GET …/workouts` (`limit`, `offset`,
 * `filter_by_modification_time`, `samples`, `zones`, `route`, `summary_start_time`, `summary_end_time`): each is
 * one vendor's API parameter, so a knob is honoured by the adapters that declare it (`VendorAdapter.queryKnobs`)
 * and refused (400, naming the providers that take it) when given a non-default value for any other: a filter
 * filters, or the request says why it cannot.
 *
 * Garmin's summary window: each bound is Unix seconds or an ISO 8601 date-time with a zone; the end is after the
 * start; one bound alone makes a window of Garmin's 24 hours (from the start, or up to the end). A workout list
 * is one Garmin call, so at most 24 hours; a sync walks its window a day per call, but not further back than the
 * vendor keeps (`maxHistoricalDays`), and not past now.
 */
import type { VendorAdapter, VendorKnob, VendorQuery, VendorQueryTarget } from "./types.ts";

/** The knobs as the HTTP layer parsed them (the anchor's names, defaults applied). */
export interface VendorKnobsInput {
  limit: number;
  offset: number;
  filter_by_modification_time: boolean;
  samples: boolean;
  zones: boolean;
  route: boolean;
  summary_start_time?: string | null;
  summary_end_time?: string | null;
}

/** The anchor's defaults: a knob at its default asks for nothing. */
export const VENDOR_KNOB_DEFAULTS = {
  limit: 50,
  offset: 0,
  filter_by_modification_time: true,
  samples: false,
  zones: false,
  route: false,
} as const;

/** Garmin answers at most 86,400 s of uploads per summary request. */
export const GARMIN_MAX_WINDOW_SEC = 86_400;

/** A knob refused: the message is the API's `detail`. */
export class VendorQueryError extends Error {
  override name = "VendorQueryError";
}

/** The query parameters a knob stands for, as the error names them. */
const PARAMETER: Record<VendorKnob, string> = {
  limit: "`limit`",
  offset: "`offset`",
  filter_by_modification_time: "`filter_by_modification_time`",
  samples: "`samples`",
  zones: "`zones`",
  route: "`route`",
  summary_window: "`summary_start_time`/`summary_end_time`",
};

const present = (v: string | null | undefined): v is string => typeof v === "string" && v.trim() !== "";

/** The knobs given a non-default value. */
export function knobsAsked(raw: VendorKnobsInput): VendorKnob[] {
  const asked: VendorKnob[] = [];
  if (raw.limit !== VENDOR_KNOB_DEFAULTS.limit) asked.push("limit");
  if (raw.offset !== VENDOR_KNOB_DEFAULTS.offset) asked.push("offset");
  if (raw.filter_by_modification_time !== VENDOR_KNOB_DEFAULTS.filter_by_modification_time)
    asked.push("filter_by_modification_time");
  if (raw.samples) asked.push("samples");
  if (raw.zones) asked.push("zones");
  if (raw.route) asked.push("route");
  if (present(raw.summary_start_time) || present(raw.summary_end_time)) asked.push("summary_window");
  return asked;
}

/** Unix seconds (digits) or an ISO 8601 date-time with a zone → epoch seconds. */
export function parseSummaryTime(name: string, value: string): number {
  const v = value.trim();
  if (/^\d{1,11}$/.test(v)) return Number(v);
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i.test(v)) {
    const ms = Date.parse(v);
    if (!Number.isNaN(ms)) return Math.floor(ms / 1000);
  }
  throw new VendorQueryError(
    `\`${name}\` must be Unix seconds or an ISO 8601 date-time with a zone (e.g. 2026-11-20T00:00:00Z), not '${value.slice(0, 64)}'`,
  );
}

/** The Garmin summary window asked for, epoch seconds; validated against Garmin's rules for the target. */
export function summaryWindowOf(
  raw: VendorKnobsInput,
  target: VendorQueryTarget,
  adapter: VendorAdapter,
  nowMs: number,
): { start: number; end: number } {
  const nowSec = Math.floor(nowMs / 1000);
  const start = present(raw.summary_start_time)
    ? parseSummaryTime("summary_start_time", raw.summary_start_time)
    : undefined;
  const end = present(raw.summary_end_time) ? parseSummaryTime("summary_end_time", raw.summary_end_time) : undefined;
  const window =
    start !== undefined && end !== undefined
      ? { start, end }
      : start !== undefined
        ? { start, end: start + GARMIN_MAX_WINDOW_SEC }
        : { start: (end as number) - GARMIN_MAX_WINDOW_SEC, end: end as number };
  if (window.end <= window.start) throw new VendorQueryError("`summary_end_time` must be after `summary_start_time`");
  if (target === "workouts" && window.end - window.start > GARMIN_MAX_WINDOW_SEC)
    throw new VendorQueryError(
      `The summary window is at most ${GARMIN_MAX_WINDOW_SEC} seconds (24 hours) per ${adapter.id} request`,
    );
  if (window.start >= nowSec) throw new VendorQueryError("`summary_start_time` must be in the past");
  if (target === "sync") {
    window.end = Math.min(window.end, nowSec);
    const reach = adapter.maxHistoricalDays;
    if (reach !== null && window.start < nowSec - reach * 86_400)
      throw new VendorQueryError(
        `\`summary_start_time\` reaches back at most ${reach} days for ${adapter.id} (the summaries it keeps)`,
      );
  }
  return window;
}

/**
 * The knobs `adapter` takes for `target`, from what the request asked; throws `VendorQueryError` for a knob it
 * does not take (the detail names the providers of `adapters` that do). Set: declared knobs that were asked for
 * (for `workouts` every declared knob, defaults included), and `filter_by_modification_time` whenever declared.
 */
export function resolveVendorQuery(p: {
  adapter: VendorAdapter;
  target: VendorQueryTarget;
  raw: VendorKnobsInput;
  adapters: readonly VendorAdapter[];
  now?: number;
}): VendorQuery {
  const declared = new Set(p.adapter.queryKnobs?.[p.target] ?? []);
  for (const knob of knobsAsked(p.raw)) {
    if (declared.has(knob)) continue;
    const takers = p.adapters
      .filter((a) => a.id !== "sandbox" || p.adapter.id === "sandbox")
      .filter((a) => a.queryKnobs?.[p.target]?.includes(knob))
      .map((a) => a.id)
      .sort();
    const where = p.target === "sync" ? "a sync" : "the workout list";
    throw new VendorQueryError(
      takers.length > 0
        ? `${PARAMETER[knob]} of ${where} applies to ${takers.join(", ")} only, not ${p.adapter.id}`
        : `${PARAMETER[knob]} is not taken by ${where} of any provider (${p.adapter.id} included)`,
    );
  }
  const q: VendorQuery = {};
  const asked = new Set(knobsAsked(p.raw));
  const set = (knob: VendorKnob) => declared.has(knob) && (p.target === "workouts" || asked.has(knob));
  if (set("limit")) q.limit = p.raw.limit;
  if (set("offset")) q.offset = p.raw.offset;
  // The anchor's default (true) is a choice of its own: a vendor that takes the filter always gets it.
  if (declared.has("filter_by_modification_time")) q.byModificationTime = p.raw.filter_by_modification_time;
  if (set("samples") || set("zones") || set("route"))
    q.detail = { samples: p.raw.samples, zones: p.raw.zones, route: p.raw.route };
  if (declared.has("summary_window") && asked.has("summary_window"))
    q.summaryWindow = summaryWindowOf(p.raw, p.target, p.adapter, p.now ?? Date.now());
  return q;
}
