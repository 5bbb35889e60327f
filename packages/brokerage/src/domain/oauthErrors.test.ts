import { describe, expect, it } from "vitest";
import { OAuthError, oauthErrorStatus, toErrorDescription } from "./oauthErrors.ts";

describe("OAuthError", () => {
  it("answers 401 for invalid_client, 5xx for server errors, 400 for the rest", () => {
    expect(oauthErrorStatus("invalid_client")).toBe(401);
    expect(oauthErrorStatus("server_error")).toBe(500);
    expect(oauthErrorStatus("temporarily_unavailable")).toBe(503);
    for (const code of ["invalid_request", "invalid_grant", "unsupported_grant_type", "invalid_scope"] as const) {
      expect(new OAuthError(code, "x").statusCode).toBe(400);
    }
  });

  it("is RFC 6749 §5.2 JSON, its description printable ASCII without quote or backslash", () => {
    const error = new OAuthError("invalid_scope", 'unknown scope "é\\n\u0000\u{1F680}"');
    expect(JSON.parse(JSON.stringify(error))).toEqual({
      error: "invalid_scope",
      error_description: "unknown scope ???n???",
    });
    expect(error).toMatchObject({
      name: "OAuthError",
      error: "invalid_scope",
      message: `invalid_scope: ${error.description}`,
    });
    expect(toErrorDescription("a".repeat(1000))).toHaveLength(300);
    expect(toErrorDescription("plain text: ok (1-2) [x] {y} ~")).toBe("plain text: ok (1-2) [x] {y} ~");
  });
});
