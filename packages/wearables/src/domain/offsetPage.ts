/**
 * The offset envelope of the users list (Open Wearables' `OldPaginatedResponse`):
 * `{items, total, page, limit, pages, has_next, has_prev}` with `pages = ceil(total / limit)`.
 */
export interface OffsetPage<T> {
  items: T[];
  total: number;
  page: number;
  limit: number;
  pages: number;
  has_next: boolean;
  has_prev: boolean;
}

export function offsetPage<T>(items: T[], total: number, page: number, limit: number): OffsetPage<T> {
  const pages = Math.ceil(total / limit);
  return { items, total, page, limit, pages, has_next: page < pages, has_prev: page > 1 };
}

/** Rows to skip for a 1-based page. */
export const pageOffset = (page: number, limit: number) => (page - 1) * limit;
