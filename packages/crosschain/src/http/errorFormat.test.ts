import { HttpError } from "@platform/kernel";
import type { FastifyRequest } from "fastify";
import { describe, expect, it } from "vitest";
import { formatError } from "./errorFormat.ts";

const request = { id: "req-1" } as FastifyRequest;

describe("formatError", () => {
  it("shows an unexpected failure as the anchor does, without its details", () => {
    const { statusCode, body } = formatError(
      new HttpError(500, "db password is hunter2", "INTERNAL_SERVER_ERROR"),
      request,
    );
    expect(statusCode).toBe(500);
    expect(body).toEqual({
      type: "ServiceApiError",
      code: "INTERNAL_SERVER_ERROR",
      status: 500,
      message: "Unexpected error occurred. Please try again later or contact support.",
      id: "req-1",
    });
  });

  it("keeps the code and message of a deliberate upstream error", () => {
    const error = new HttpError(503, "Chain 10 state is not available yet; try again shortly", "UPSTREAM_RPC_ERROR");
    expect(formatError(error, request).body).toMatchObject({
      code: "UPSTREAM_RPC_ERROR",
      status: 503,
      message: "Chain 10 state is not available yet; try again shortly",
    });
  });

  it("maps 401 to UNAUTHORIZED and keeps the parameter of a 400", () => {
    expect(formatError(new HttpError(401, "Missing API key"), request).body).toMatchObject({ code: "UNAUTHORIZED" });
    expect(formatError(new HttpError(400, "bad", "INVALID_PARAM", "amount"), request).body).toMatchObject({
      code: "INVALID_PARAM",
      param: "amount",
      message: "bad",
    });
  });
});
