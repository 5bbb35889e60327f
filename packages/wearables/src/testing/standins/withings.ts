/**
 * A Withings stand-in: Withings' OAuth paths and token dialect (`action=requesttoken`, `{status, body}`, `userid`)
 * and its data actions, each a form POST answered `{status, body}` with `more`/`offset` paging:
 * - `POST /v2/measure action=getworkouts|getactivity` (`startdateymd`, `enddateymd` or `lastupdate`, `offset`)
 * - `POST /v2/sleep action=getsummary` (same parameters) and `action=get` (a night's stage intervals, `startdate`,
 *   `enddate` at most 24 h apart)
 * - `POST /measure action=getmeas` (`startdate`, `enddate` epoch seconds or `lastupdate`, `meastypes`, `offset`)
 * Bad parameters answer HTTP 200 `{status: 503, error: "Invalid Params"}` as Withings does. Every account has one
 * workout, one night, one weigh-in and one activity day per UTC day, the same every time; pages hold 5 items so
 * paging is exercised. An unknown or expired token answers HTTP 401 (Withings answers `{status: 401}` on HTTP
 * 200; the shared client refreshes only on HTTP 401, see the adapter).
 */
import type { FastifyReply, FastifyRequest } from "fastify";
import { startVendorCloud, type VendorCloud } from "../../sandbox/vendorCloud.ts";

export const WITHINGS_PAGE_SIZE = 5;
const DAY = 86_400;
export const WITHINGS_TIMEZONE = "Europe/Paris";
const CATEGORIES = [2, 6, 1, 16, 7];

/** The workout of UTC day `d` (days since the epoch). */
export function withingsWorkoutOf(d: number) {
  const startdate = d * DAY + 6 * 3600;
  const category = CATEGORIES[d % CATEGORIES.length] as number;
  const onFoot = category === 1 || category === 2;
  return {
    id: 900_000 + d,
    category,
    timezone: WITHINGS_TIMEZONE,
    model: 1062,
    attrib: 0,
    startdate,
    enddate: startdate + 45 * 60,
    date: new Date(d * DAY * 1000).toISOString().slice(0, 10),
    deviceid: "a1b2c3",
    data: {
      calories: 300 + (d % 7) * 10,
      effduration: 2400,
      hr_average: 140 + (d % 10),
      hr_min: 95,
      hr_max: 171,
      ...(onFoot ? { steps: 6000 + (d % 5) * 100 } : {}),
      distance: category === 16 ? 0 : 8000 + (d % 5) * 100,
      elevation: 40,
    },
    modified: startdate + 3600,
  };
}

/** The night that ends on UTC day `d`. */
export function withingsSleepOf(d: number) {
  const startdate = d * DAY - 2 * 3600;
  return {
    id: 500_000 + d,
    timezone: WITHINGS_TIMEZONE,
    model: 32,
    model_id: 63,
    startdate,
    enddate: startdate + 8 * 3600,
    date: new Date(d * DAY * 1000).toISOString().slice(0, 10),
    data: {
      total_timeinbed: 28_800,
      total_sleep_time: 26_400,
      deepsleepduration: 5_400,
      lightsleepduration: 15_000,
      remsleepduration: 6_000,
      wakeupduration: 2_400,
      sleep_efficiency: 0.92,
    },
    created: startdate + 9 * 3600,
    modified: startdate + 9 * 3600,
  };
}

/** The stage intervals (Sleep v2 `get`) of the night ending on UTC day `d`: state 0 awake, 1 light, 2 deep, 3 REM. */
export function withingsSleepStagesOf(d: number) {
  const start = withingsSleepOf(d).startdate;
  const plan: [number, number, number][] = [
    [0, 15, 0],
    [15, 135, 1],
    [135, 225, 2],
    [225, 355, 1],
    [355, 455, 3],
    [455, 480, 0],
  ];
  return plan.map(([from, to, state]) => ({
    startdate: start + from * 60,
    enddate: start + to * 60,
    state,
    model: 32,
  }));
}

/** The weigh-in of UTC day `d` (weight, fat ratio, heart pulse, SpO2). */
export function withingsMeasureGroupOf(d: number) {
  const date = d * DAY + 7 * 3600;
  return {
    grpid: 700_000 + d,
    attrib: 0,
    date,
    created: date,
    modified: date,
    category: 1,
    deviceid: "d4e5f6",
    measures: [
      { value: 72_345 + (d % 3) * 10, type: 1, unit: -3, algo: 0, fm: 3 },
      { value: 215, type: 6, unit: -1, algo: 0, fm: 3 },
      { value: 58, type: 11, unit: 0, algo: 0, fm: 3 },
      { value: 97, type: 54, unit: 0, algo: 0, fm: 3 },
    ],
    modelid: 13,
    model: "Body+",
    comment: null,
  };
}

export function withingsActivityOf(d: number) {
  return {
    date: new Date(d * DAY * 1000).toISOString().slice(0, 10),
    timezone: WITHINGS_TIMEZONE,
    deviceid: null,
    hash_deviceid: null,
    brand: 18,
    is_tracker: false,
    steps: 8000 + (d % 9) * 100,
    distance: 6123.4,
    elevation: 9,
    calories: 412.5,
  };
}

export interface WithingsStandIn extends VendorCloud {
  /** Sends a Withings notification (form-encoded, unsigned) to `targetUrl?token=…`; answers the HTTP status. */
  push(
    targetUrl: string,
    notice: { userid: string; appli: number; startdate: number; enddate: number },
    token: string | undefined,
  ): Promise<number>;
}

const ymdPattern = /^\d{4}-\d{2}-\d{2}$/;
const invalid = (reply: FastifyReply) => reply.send({ status: 503, error: "Invalid Params" });

/** UTC days whose record lies in [from, to] (epoch seconds), only the past ones. */
function daysIn(from: number, to: number) {
  const days: number[] = [];
  const until = Math.min(to + 1, Date.now() / 1000);
  for (let d = Math.floor(from / DAY) - 1; d <= Math.floor(to / DAY) + 1 && days.length < 800; d++) days.push(d);
  return { days, until };
}

export async function startWithingsStandIn(p: {
  clients: Record<string, string>;
  accessTtlSec?: number;
}): Promise<WithingsStandIn> {
  const cloud = await startVendorCloud({
    paths: { authorize: "/oauth2_user/authorize2", token: "/v2/oauth2" },
    clients: p.clients,
    accessTtlSec: p.accessTtlSec,
    dialect: "withings",
    title: "Withings",
    routes: (c) => routes(c),
  });
  return {
    ...cloud,
    async push(targetUrl, notice, token) {
      const url = new URL(targetUrl);
      if (token !== undefined) url.searchParams.set("token", token);
      const body = new URLSearchParams(Object.entries(notice).map(([k, v]) => [k, String(v)]));
      const res = await fetch(url, { method: "POST", body });
      await res.body?.cancel();
      return res.status;
    },
  };
}

function routes(cloud: VendorCloud) {
  /** A page of `all` at `offset` in Withings' shape. */
  const paged = <T>(all: T[], form: Record<string, string | undefined>, key: string, moreAsNumber = false) => {
    const offset = Number(form.offset ?? 0);
    const items = all.slice(offset, offset + WITHINGS_PAGE_SIZE);
    const more = offset + WITHINGS_PAGE_SIZE < all.length;
    return {
      status: 0,
      body: { [key]: items, more: moreAsNumber ? Number(more) : more, offset: offset + items.length },
    };
  };
  /** The [from, to] epoch seconds of a ymd range or `lastupdate`, or undefined when the parameters are bad. */
  const ymdRange = (form: Record<string, string | undefined>) => {
    if (form.lastupdate !== undefined) {
      const since = Number(form.lastupdate);
      return Number.isInteger(since) ? { from: since, to: Date.now() / 1000 } : undefined;
    }
    if (!ymdPattern.test(form.startdateymd ?? "") || !ymdPattern.test(form.enddateymd ?? "")) return undefined;
    const from = Date.parse(`${form.startdateymd}T00:00:00Z`) / 1000;
    const to = Date.parse(`${form.enddateymd}T00:00:00Z`) / 1000 + DAY - 1;
    return to >= from ? { from, to } : undefined;
  };
  const badOffset = (form: Record<string, string | undefined>) =>
    form.offset !== undefined && !/^\d+$/.test(form.offset);

  const measureV2 = async (req: FastifyRequest, reply: FastifyReply) => {
    if (!cloud.authenticate(req, reply)) return reply;
    const form = (req.body ?? {}) as Record<string, string | undefined>;
    const range = ymdRange(form);
    if (!range || badOffset(form)) return invalid(reply);
    const { days, until } = daysIn(range.from, range.to);
    if (form.action === "getworkouts") {
      const all = days
        .map(withingsWorkoutOf)
        .filter((w) =>
          form.lastupdate !== undefined
            ? w.modified >= range.from
            : w.startdate >= range.from && w.startdate <= range.to,
        )
        .filter((w) => w.enddate <= until);
      return paged(all, form, "series");
    }
    if (form.action === "getactivity") {
      const all = days
        .filter((d) => d * DAY >= range.from && d * DAY <= range.to && (d + 1) * DAY <= until)
        .map(withingsActivityOf);
      return paged(all, form, "activities");
    }
    return invalid(reply);
  };
  cloud.app.post("/v2/measure", measureV2);

  cloud.app.post("/v2/sleep", async (req, reply) => {
    if (!cloud.authenticate(req, reply)) return reply;
    const form = (req.body ?? {}) as Record<string, string | undefined>;
    if (form.action === "get") {
      // High-resolution stages: `startdate`/`enddate` epoch seconds, at most 24 hours apart.
      const from = Number(form.startdate);
      const to = Number(form.enddate);
      if (!Number.isInteger(from) || !Number.isInteger(to) || to < from || to - from > DAY) return invalid(reply);
      const series = [Math.floor(from / DAY), Math.floor(from / DAY) + 1]
        .flatMap((d) => withingsSleepStagesOf(d))
        .filter((x) => x.enddate > from && x.startdate < to && x.enddate <= Date.now() / 1000);
      return { status: 0, body: { series, model: 32 } };
    }
    const range = ymdRange(form);
    if (form.action !== "getsummary" || !range || badOffset(form)) return invalid(reply);
    const { days, until } = daysIn(range.from, range.to);
    // A night belongs to the day it ends on, as Withings' `date`.
    const all = days
      .map(withingsSleepOf)
      .filter((s) => s.enddate >= range.from && s.enddate <= range.to + 1 && s.enddate <= until);
    return paged(all, form, "series");
  });

  cloud.app.post("/measure", async (req, reply) => {
    if (!cloud.authenticate(req, reply)) return reply;
    const form = (req.body ?? {}) as Record<string, string | undefined>;
    const from = Number(form.lastupdate ?? form.startdate);
    const to = form.lastupdate !== undefined ? Date.now() / 1000 : Number(form.enddate);
    if (form.action !== "getmeas" || !Number.isInteger(from) || !Number.isFinite(to) || to < from || badOffset(form))
      return invalid(reply);
    const types = form.meastypes ? new Set(form.meastypes.split(",").map(Number)) : undefined;
    const { days, until } = daysIn(from, to);
    const groups = days
      .map(withingsMeasureGroupOf)
      .filter((g) => g.date >= from && g.date <= to && g.date <= until)
      .map((g) => ({ ...g, measures: g.measures.filter((m) => !types || types.has(m.type)) }))
      .filter((g) => g.measures.length > 0);
    const page = paged(groups, form, "measuregrps", true);
    return { ...page, body: { updatetime: Math.floor(Date.now() / 1000), timezone: WITHINGS_TIMEZONE, ...page.body } };
  });
}
