export * from "./AppError.js"
export type { CatalogErrorShape, ErrorBody, ErrorInput, ErrorSpec } from "./define.js"
