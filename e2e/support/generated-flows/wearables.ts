/** Wearables through a client generated from its served document: users, a workout file import, its data. */
import createClient from "openapi-fetch";
import { expect } from "vitest";
import type { WearablesFlowContext } from "./flowContext.ts";
import type { paths } from "./generated/wearables.ts";

export async function run(ctx: WearablesFlowContext): Promise<void> {
  const client = createClient<paths>({ baseUrl: ctx.origin, headers: { "X-Service-API-Key": ctx.apiKey } });
  client.use(ctx.checkAnswers());

  const email = `generated-${Date.now()}@example.com`;
  const created = await client.POST("/api/v1/users", { body: { first_name: "Ada", email } });
  expect(created.response.status).toBe(201);
  const userId = created.data?.id as string;

  // Only some of the parameters: the ones with defaults (page, sort_by, sort_order) may be left out.
  const listed = await client.GET("/api/v1/users", { params: { query: { limit: 5, email } } });
  expect(listed.data?.items.map((u) => u.id)).toEqual([userId]);
  const one = await client.GET("/api/v1/users/{user_id}", { params: { path: { user_id: userId } } });
  expect(one.data?.email).toBe(email);
  const missing = await client.GET("/api/v1/users/{user_id}", {
    params: { path: { user_id: "00000000-0000-4000-8000-000000000000" } },
  });
  expect(missing.error?.detail).toMatch(/not found/);

  const imported = await client.POST("/api/v1/users/{user_id}/import/{kind}", {
    params: { path: { user_id: userId, kind: "gpx" } },
    body: { file: "" },
    bodySerializer: () => {
      const form = new FormData();
      form.append("file", new Blob([ctx.gpx.text], { type: "application/gpx+xml" }), "ride.gpx");
      return form;
    },
  });
  const taskId = imported.data?.task_id as string;
  expect(taskId).toBeTruthy();
  let state: string | undefined;
  for (let i = 0; i < 300 && state !== "completed" && state !== "failed"; i++) {
    if (i > 0) await new Promise((r) => setTimeout(r, 100));
    const job = await client.GET("/api/v1/users/{user_id}/imports/{task_id}", {
      params: { path: { user_id: userId, task_id: taskId } },
    });
    state = job.data?.state;
  }
  expect(state).toBe("completed");

  const range = { start_time: ctx.gpx.start.toISOString(), end_time: ctx.gpx.end.toISOString() };
  const series = await client.GET("/api/v1/users/{user_id}/timeseries", {
    params: { path: { user_id: userId }, query: { ...range, types: ["heart_rate"], limit: 10 } },
  });
  expect(series.data?.data.length).toBe(10);
  expect(series.data?.data[0]?.type).toBe("heart_rate");
  const workouts = await client.GET("/api/v1/users/{user_id}/events/workouts", {
    params: {
      path: { user_id: userId },
      query: { start_date: range.start_time, end_date: new Date(ctx.gpx.end.getTime() + 60_000).toISOString() },
    },
  });
  expect(workouts.data?.data.length).toBe(1);
}
