export {
  isZodSchema,
  schemaProperties,
  schemaRequired,
  toJsonSchema,
  type JsonSchema,
  type SchemaInput,
} from "./json-schema.js";
export { compileSchema, validateValue, type ValidationResult } from "./validator.js";
