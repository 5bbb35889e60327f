/**
 * `@master-chief/alpaca` 6.3.20 ships its types in `@types/`, but its package.json `exports` has no `types`
 * condition, so TypeScript (NodeNext) cannot reach them through the package name. The module is declared here
 * untyped; tests type what they use from the shipped declarations by path (`e2e/alpacaMasterChief.test.ts`).
 */
declare module "@master-chief/alpaca";
