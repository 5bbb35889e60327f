import { describe, expect, it } from "vitest";
import { offsetPage, pageOffset } from "./offsetPage.ts";

describe("offsetPage", () => {
  it("computes pages and neighbours", () => {
    expect(offsetPage([1, 2], 45, 1, 20)).toEqual({
      items: [1, 2],
      total: 45,
      page: 1,
      limit: 20,
      pages: 3,
      has_next: true,
      has_prev: false,
    });
    expect(offsetPage([], 45, 3, 20)).toMatchObject({ pages: 3, has_next: false, has_prev: true });
  });

  it("has no pages when empty, and a page past the end has no next", () => {
    expect(offsetPage([], 0, 1, 20)).toMatchObject({ pages: 0, has_next: false, has_prev: false });
    expect(offsetPage([], 10, 5, 20)).toMatchObject({ pages: 1, has_next: false, has_prev: true });
  });

  it("turns a page into an offset", () => {
    expect(pageOffset(1, 20)).toBe(0);
    expect(pageOffset(3, 100)).toBe(200);
  });
});
