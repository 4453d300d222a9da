import { numberOption, parseSpecValue, registerDelegateSpec } from "../delegate/delegate-spec.js";
import { DistilledDelegate } from "./distilled-delegate.js";

/**
 * Registers `--delegate distilled=MODEL.json[,encoder=gguf=PATH,name=NAME,maxTools=N,maxInputChars=N]`
 * ({@link DistilledDelegate}). A model trained with an encoder uses `encoder=…`, else the path its file records.
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
      return DistilledDelegate.open({
        model: main,
        ...(options.encoder ? { encoder: options.encoder } : {}),
        ...(options.name ? { name: options.name } : {}),
        ...(maxTools ? { maxTools } : {}),
        ...(maxInputChars ? { maxInputChars } : {}),
      });
    },
    "distilled=MODEL.json[,encoder=gguf=PATH,name=NAME,maxTools=N,maxInputChars=N]",
  );
}

registerDistilledSpec();
