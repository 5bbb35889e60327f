/**
 * GPX 1.1 files for tests, as Garmin Connect writes them: one track, `trkpt` with `ele`, `time` and the
 * Garmin TrackPointExtension v2 (`hr`, `cad`, `speed`), plus Strava's bare `power` element.
 */
import type { WorkoutFixture } from "./workoutFixture.ts";

export interface GpxOptions {
  creator?: string;
  /** The `<trk><type>` text; the fixture's sport when unset. */
  type?: string;
  name?: string;
  /** Extra raw XML inserted in each trkpt's extensions (tests of odd files). */
  pointExtra?: (index: number) => string;
}

const iso = (ms: number): string => new Date(ms).toISOString();

/** The text of a GPX file holding `workout`. */
export function writeGpxFile(workout: WorkoutFixture, options: GpxOptions = {}): string {
  const lines: string[] = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<gpx creator="${escapeXml(options.creator ?? "Garmin Connect")}" version="1.1" xmlns="http://www.topografix.com/GPX/1/1" xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v2" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">`,
    `  <metadata><time>${iso(workout.start)}</time></metadata>`,
    "  <trk>",
    `    <name>${escapeXml(options.name ?? "Fixture workout")}</name>`,
    `    <type>${escapeXml(options.type ?? workout.sport)}</type>`,
    "    <trkseg>",
  ];
  workout.points.forEach((p, i) => {
    const ext: string[] = [];
    if (p.hr !== undefined) ext.push(`<gpxtpx:hr>${p.hr}</gpxtpx:hr>`);
    if (p.cadence !== undefined) ext.push(`<gpxtpx:cad>${p.cadence}</gpxtpx:cad>`);
    if (p.speed !== undefined) ext.push(`<gpxtpx:speed>${p.speed}</gpxtpx:speed>`);
    const power = p.power !== undefined ? `<power>${p.power}</power>` : "";
    const extra = options.pointExtra?.(i) ?? "";
    lines.push(
      `      <trkpt lat="${p.lat ?? ""}" lon="${p.lon ?? ""}">` +
        (p.ele !== undefined ? `<ele>${p.ele}</ele>` : "") +
        `<time>${iso(p.at)}</time>` +
        `<extensions>${power}<gpxtpx:TrackPointExtension>${ext.join("")}</gpxtpx:TrackPointExtension>${extra}</extensions>` +
        "</trkpt>",
    );
  });
  lines.push("    </trkseg>", "  </trk>", "</gpx>", "");
  return lines.join("\n");
}

export const escapeXml = (s: string): string =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
