import type { BackgroundJob } from "@platform/kernel";
import { startTestService, type TestService } from "@platform/kernel/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appleExportXml, appleExportZip } from "../testing/appleExport.ts";
import { writeFitFile } from "../testing/fitFile.ts";
import { writeGpxFile } from "../testing/gpxFile.ts";
import { type ImportsTestInstance, importsTestService } from "../testing/importsHost.ts";
import { writeTcxFile } from "../testing/tcxFile.ts";
import { makeWorkoutFixture } from "../testing/workoutFixture.ts";

let s: TestService<ImportsTestInstance>;
let jobs: BackgroundJob;
let userId: string;
const MAX_UPLOAD = 4 * 1024 * 1024;
const UNKNOWN = "00000000-0000-4000-8000-000000000000";

const api = (path: string, init: RequestInit & { key?: string | null } = {}) => {
  const headers = new Headers(init.headers);
  if (init.key !== null) headers.set("X-Service-API-Key", init.key ?? s.apiKey);
  return fetch(`${s.url}/api/v1${path}`, { ...init, headers });
};
const form = (content: string | Uint8Array, name = "export.xml", field = "file") => {
  const body = new FormData();
  body.append(field, new Blob([typeof content === "string" ? content : new Uint8Array(content)]), name);
  return body;
};
const upload = (path: string, body: BodyInit, key?: string | null) => api(path, { method: "POST", body, key });

/** Polls the job until it is finished (the runner works in the background). */
async function finished(taskId: string, user = userId) {
  for (let i = 0; i < 400; i++) {
    const status = await (await api(`/users/${user}/imports/${taskId}`)).json();
    if (status.state === "completed" || status.state === "failed") return status;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`import ${taskId} did not finish`);
}

beforeAll(async () => {
  s = await startTestService(importsTestService(MAX_UPLOAD));
  jobs = await (s.instance.startJobs as () => Promise<BackgroundJob>)();
  const [user] = await s.database.db.query<{ id: string }>(
    "INSERT INTO wearables.users (first_name) VALUES ('Ada') RETURNING id",
  );
  userId = (user as { id: string }).id;
});
afterAll(async () => {
  await jobs.stop();
  await s.close();
});

describe("POST /users/{user_id}/import/apple/xml/direct", () => {
  it("answers the anchor's shape, imports in the background and reports progress", async () => {
    const xml = appleExportXml({ extraHeartRates: 500 });
    const res = await upload(`/users/${userId}/import/apple/xml/direct`, form(xml));
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toEqual({ status: "processing", task_id: expect.stringMatching(/^[0-9a-f-]{36}$/), user_id: userId });
    const status = await finished(body.task_id);
    expect(status).toEqual({
      task_id: body.task_id,
      user_id: userId,
      kind: "apple_xml",
      state: "completed",
      file_name: "export.xml",
      file_bytes: Buffer.byteLength(xml),
      bytes_read: Buffer.byteLength(xml),
      items_processed: expect.any(Number),
      samples_written: expect.any(Number),
      events_written: 5,
      errors: [],
      created_at: expect.any(String),
      started_at: expect.any(String),
      finished_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(status.samples_written).toBeGreaterThan(500);
    const [{ n } = { n: 0 }] = await s.database.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM wearables.samples s JOIN wearables.data_sources d ON d.key = s.source_key
       WHERE d.user_id = $1`,
      [userId],
    );
    expect(n).toBe(status.samples_written);
    // The upload (stored in the database, for any instance's worker) is deleted once imported.
    expect(await s.database.db.query("SELECT 1 FROM wearables.import_files")).toEqual([]);
    // Apple Health has no cloud: its import is its sync, and the user's sync fields say so.
    const [apple] = await s.database.db.query<{ status: string; last_synced_at: Date }>(
      "SELECT status, last_synced_at FROM wearables.user_connections WHERE user_id = $1 AND provider = 'apple'",
      [userId],
    );
    expect(apple?.status).toBe("active");
    expect(apple?.last_synced_at.getTime()).toBeGreaterThanOrEqual(Date.parse(status.finished_at) - 1_000);
  });

  it("takes export.zip too", async () => {
    const res = await upload(
      `/users/${userId}/import/apple/xml/direct`,
      form(appleExportZip(appleExportXml()), "export.zip"),
    );
    expect(res.status).toBe(200);
    const status = await finished((await res.json()).task_id);
    expect(status).toMatchObject({ kind: "apple_zip", state: "completed", errors: [] });
  });

  it("reports a hostile file as a failed job with its reason", async () => {
    const bomb = `<?xml version="1.0"?><!DOCTYPE HealthData [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;">]><HealthData locale="en">&b;</HealthData>`;
    const res = await upload(`/users/${userId}/import/apple/xml/direct`, form(bomb));
    expect(res.status).toBe(200);
    const status = await finished((await res.json()).task_id);
    expect(status.state).toBe("failed");
    expect(status.errors).toEqual([{ message: expect.stringMatching(/entity/), at: expect.any(String) }]);
  });
});

describe("POST /users/{user_id}/import/{fit|gpx|tcx}", () => {
  it.each([
    ["fit", (w: ReturnType<typeof makeWorkoutFixture>) => writeFitFile(w)],
    ["gpx", (w: ReturnType<typeof makeWorkoutFixture>) => writeGpxFile(w)],
    ["tcx", (w: ReturnType<typeof makeWorkoutFixture>) => writeTcxFile(w)],
  ] as const)("imports a %s workout", async (kind, write) => {
    const start = Date.UTC(2026, 3, 1 + ["fit", "gpx", "tcx"].indexOf(kind), 6);
    const res = await upload(
      `/users/${userId}/import/${kind}`,
      form(write(makeWorkoutFixture({ start, seconds: 240 })), `w.${kind}`),
    );
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({ status: "processing", user_id: userId });
    const status = await finished(body.task_id);
    expect(status).toMatchObject({ kind, state: "completed", events_written: 1, errors: [] });
    expect(status.samples_written).toBeGreaterThanOrEqual(240);
  });
});

describe("bad requests", () => {
  it("400/404/413/415 with {detail}, never 500", async () => {
    const xml = appleExportXml({ everyType: false });
    const cases: [string, RequestInit & { key?: string | null }, number, RegExp][] = [
      ["/users/123/import/apple/xml/direct", { method: "POST", body: form(xml) }, 400, /path\.user_id/],
      [`/users/${UNKNOWN}/import/apple/xml/direct`, { method: "POST", body: form(xml) }, 404, /User with ID/],
      [`/users/${userId}/import/pdf`, { method: "POST", body: form(xml) }, 400, /path\.kind/],
      [
        `/users/${userId}/import/apple/xml/direct`,
        { method: "POST", body: "{}", headers: { "content-type": "application/json" } },
        415,
        /multipart/,
      ],
      [
        `/users/${userId}/import/apple/xml/direct`,
        { method: "POST", body: form(xml, "x.xml", "upload") },
        400,
        /field `file`/,
      ],
      [`/users/${userId}/import/apple/xml/direct`, { method: "POST", body: form("") }, 400, /empty/],
      // The fuzzer's cases: a multipart content type without its boundary, and a body that is not multipart.
      [
        `/users/${userId}/import/tcx`,
        { method: "POST", body: "a".repeat(1000), headers: { "content-type": "multipart/form-data" } },
        400,
        /multipart/,
      ],
      [
        `/users/${userId}/import/apple/xml/direct`,
        { method: "POST", body: "not multipart", headers: { "content-type": "multipart/form-data; boundary=x" } },
        400,
        /multipart/,
      ],
      [
        `/users/${userId}/import/apple/xml/direct`,
        { method: "POST", body: form(new Uint8Array(MAX_UPLOAD + 10)) },
        413,
        /larger|too large/i,
      ],
      [`/users/${userId}/import/apple/xml/direct`, { method: "POST", body: form(xml), key: null }, 401, /API key/],
      [`/users/${userId}/imports/${UNKNOWN}`, {}, 404, /^Import job not found$/],
      [`/users/${userId}/imports/nope`, {}, 400, /path\.task_id/],
    ];
    for (const [path, init, status, detail] of cases) {
      const res = await api(path, init);
      expect(res.status, `${init.method ?? "GET"} ${path}`).toBe(status);
      expect((await res.json()).detail).toMatch(detail);
    }
    // Nothing is left behind by refused uploads: no import, no stored file, no job.
    expect(await s.database.db.query("SELECT 1 FROM wearables.import_files")).toEqual([]);
  });

  it("another user's job is not found", async () => {
    const res = await upload(`/users/${userId}/import/apple/xml/direct`, form(appleExportXml({ everyType: false })));
    const { task_id } = await res.json();
    await finished(task_id);
    const [other] = await s.database.db.query<{ id: string }>(
      "INSERT INTO wearables.users DEFAULT VALUES RETURNING id",
    );
    const answer = await api(`/users/${other?.id}/imports/${task_id}`);
    expect(answer.status).toBe(404);
  });

  it("documents the routes with the multipart body", async () => {
    const doc = await (await fetch(`${s.url}/openapi.json`)).json();
    const direct = doc.paths["/api/v1/users/{user_id}/import/apple/xml/direct"].post;
    expect(direct.operationId).toBe("importAppleHealthXml");
    expect(direct.requestBody.content["multipart/form-data"].schema.properties.file.format).toBe("binary");
    expect(Object.keys(direct.responses)).toEqual(expect.arrayContaining(["200", "400", "401", "404", "413", "415"]));
    expect(doc.paths["/api/v1/users/{user_id}/imports/{task_id}"].get.operationId).toBe("getImport");
    expect(doc.paths["/api/v1/users/{user_id}/import/{kind}"].post.operationId).toBe("importWorkoutFile");
  });
});
