import { numberOption, parseSpecValue, registerDelegateSpec } from "../delegate-spec.js";
import { DistilledDelegate } from "./distilled-delegate.js";

/**
 * Registers `--delegate distilled=MODEL.json[,name=NAME,maxTools=N,maxInputChars=N]` ({@link DistilledDelegate}).
 * Importing this module registers it (the CLI does).
 */
export function registerDistilledSpec(): void {
  registerDelegateSpec(
    "distilled",
    (value) => {
      const { main, options } = parseSpecValue(value);
      const spec = `distilled=${value}`;
      const maxTools = numberOption(options, "maxTools", spec);
      const maxInputChars = numberOption(options, "maxInputChars", spec);
      return new DistilledDelegate({
        model: main,
        ...(options.name ? { name: options.name } : {}),
        ...(maxTools ? { maxTools } : {}),
        ...(maxInputChars ? { maxInputChars } : {}),
      });
    },
    "distilled=MODEL.json[,name=NAME,maxTools=N,maxInputChars=N]",
  );
}

registerDistilledSpec();
