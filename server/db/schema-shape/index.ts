export { databaseShape } from "./database-shape";
export { diffShapes } from "./diff-shapes";
export { expectedShape } from "./expected-shape";
export type { DbShape } from "./shape";
