/**
 * API plans with Etherscan's published limits (docs.etherscan.io/resources/rate-limits): calls per
 * second and per UTC day; the daily statistics are "PRO" endpoints, for Standard and above.
 * Limits apply per key here (Etherscan sums the keys of one account; we have no accounts).
 */
export const PLANS = {
  free: { perSecond: 3, perDay: 100_000, pro: false },
  lite: { perSecond: 5, perDay: 100_000, pro: false },
  standard: { perSecond: 10, perDay: 200_000, pro: true },
  advanced: { perSecond: 20, perDay: 500_000, pro: true },
  professional: { perSecond: 30, perDay: 1_000_000, pro: true },
  /** Not an Etherscan plan: for the operator's own systems (and benchmarks) on a self-hosted deployment. */
  unlimited: { perSecond: Number.POSITIVE_INFINITY, perDay: Number.POSITIVE_INFINITY, pro: true },
} as const;

export type PlanName = keyof typeof PLANS;
export const PLAN_NAMES = Object.keys(PLANS) as PlanName[];

/** The plan of a key; keys made without `--plan` are free keys. */
export const planOf = (plan: string | null | undefined) => PLANS[(plan as PlanName) ?? "free"] ?? PLANS.free;
