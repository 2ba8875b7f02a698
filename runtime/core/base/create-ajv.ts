/**
 * The one ajv set-up every action's input schema is compiled with: JSON Schema
 * 2020-12, strict mode (unknown keywords and formats are errors), ajv-formats,
 * and the catalog's nonstandard formats registered as annotations.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

export function createAjv(annotationFormats: readonly string[]): Ajv2020 {
  const ajv = new Ajv2020({
    strict: true,
    // Real documents use union types, `properties` without `type: object`, and
    // `required` names without a matching property; none of these is ambiguous.
    allowUnionTypes: true,
    strictTypes: false,
    strictTuples: false,
    strictRequired: false,
    allErrors: true,
  });
  addFormats.default(ajv);
  for (const format of annotationFormats) ajv.addFormat(format, true);
  return ajv;
}
