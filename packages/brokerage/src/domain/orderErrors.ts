/**
 * Why an order operation fails, with the anchor's status, 8-digit code and message (reference §2.1):
 * 422/42210000 for parameters the anchor does not accept, 422/40010001 for a reused client_order_id,
 * 403/40310000 for buying power, quantity and permission failures, 404/40410000 for an unknown order or
 * position. Routes pass them through as `{code, message}` (plus the anchor's extra fields, if any).
 */
export class OrderRejectedError extends Error {
  override name = "OrderRejectedError" as const;
  constructor(
    readonly status: 403 | 404 | 422,
    readonly code: number,
    message: string,
    /** Extra fields of the anchor's body (e.g. `available`, `existing_qty` for quantity failures). */
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}
export type OrderRejectedErrorType = OrderRejectedError & { name: "OrderRejectedError" };

/** A parameter the anchor would not accept: 422, 42210000. */
export const invalidOrder = (message: string) => new OrderRejectedError(422, 42210000, message);
/** Buying power, quantity or permission: 403, 40310000. */
export const forbiddenOrder = (message: string, details?: Record<string, unknown>) =>
  new OrderRejectedError(403, 40310000, message, details);
/** A replacement that changes none of the order's terms (alpacahq/alpaca-trade-api-js#123). */
export const orderNotChanged = () => new OrderRejectedError(403, 40310000, "order parameters are not changed");
export const orderNotFound = () => new OrderRejectedError(404, 40410000, "order not found");
export const positionNotFound = () => new OrderRejectedError(404, 40410000, "position does not exist");
export const clientOrderIdTaken = () => new OrderRejectedError(422, 40010001, "client_order_id must be unique");
