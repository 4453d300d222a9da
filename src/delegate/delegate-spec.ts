import { InvalidOptionError } from "../errors/invalid-option-error.js";
import type { ToolCallDelegate } from "./protocol.js";
import { ScriptedDelegate } from "./scripted-delegate.js";

/** Builds a backend from the part of a spec after `KIND=` (e.g. a file, a model path, a URL). */
export type DelegateSpecFactory = (value: string) => ToolCallDelegate | Promise<ToolCallDelegate>;

/**
 * Wraps the backend a spec built, given the value of its spec option (e.g. `relevance=encoder:0.42`), the
 * values of the further options it registered (`examples=FILE,k=4`: `{ k: "4" }`) and what the spec names once
 * its kind expanded it (`target`: `local=CATALOGUE-NAME` → the cached file).
 */
export type DelegateSpecWrapper = (
  inner: ToolCallDelegate,
  value: string,
  spec: string,
  options: Record<string, string>,
  target: ResolvedSpec,
) => ToolCallDelegate | Promise<ToolCallDelegate>;

/**
 * A spec as its kind reads it: the kind, the value after the kind's expansion, and that value split into its main
 * part (a file, a model path, a URL) and its `,key=value` options (the wrappers' included).
 */
export interface ResolvedSpec {
  kind: string;
  value: string;
  main: string;
  options: Record<string, string>;
}

/**
 * The backend kinds a `--delegate KIND=VALUE` spec may name, and the spec options every kind accepts: a value the
 * host owns (the composition root builds one with every built-in kind), not a table filled by importing modules.
 * A new registry is empty; the parts that bring kinds add theirs (`registerScriptedSpec(registry)`,
 * `registerBackendSpecs(registry)`, `registerDistillSpecs(registry)`).
 *
 * @example
 * const specs = createDelegateSpecRegistry(); // scripted=, local=, llama-server=, openai=
 * specs.register("fixed", (value) => new ScriptedDelegate({ entries: [], name: value }), "fixed=NAME");
 * const backend = await specs.create("llama-server=http://127.0.0.1:8080,maxTools=8");
 */
export class DelegateSpecRegistry {
  readonly #factories = new Map<string, { factory: DelegateSpecFactory; usage: string }>();
  readonly #expanders = new Map<string, (value: string) => string>();
  readonly #wrappers = new Map<
    string,
    { wrap: DelegateSpecWrapper; usage: string; keys: readonly string[]; outermost: boolean }
  >();

  /**
   * Registers a backend kind for `--delegate KIND=VALUE` (and {@link DelegateSpecRegistry.create}). A later
   * registration of the same kind replaces the earlier one.
   *
   * @example
   * specs.register("llama-server", (value) => {
   *   const { main, options } = parseSpecValue(value);
   *   return new LlamaServerDelegate({ baseUrl: main, maxTools: options.maxTools ? Number(options.maxTools) : undefined });
   * }, "llama-server=URL[,maxTools=N]");
   */
  register(kind: string, factory: DelegateSpecFactory, usage = `${kind}=VALUE`): this {
    this.#factories.set(kind, { factory, usage });
    return this;
  }

  /**
   * Registers a spec option that any kind accepts, `KIND=VALUE,OPTION=…`: the option is taken out before the
   * kind's factory sees the value, and `wrap` is given the backend it built (a relevance step in front of any
   * backend, say). A later registration of the same option replaces the earlier one.
   */
  wrap(
    option: string,
    wrap: DelegateSpecWrapper,
    usage = `${option}=VALUE`,
    /** Further options that belong to this wrapper (taken out of the kind's value too, given to `wrap`). */
    keys: readonly string[] = [],
    /**
     * Wrap after every other option, whatever the spec's order: for what must stay visible on the backend the
     * spec returns (a `trust=` model, which a wrapper in front would hide). Default false.
     */
    outermost = false,
  ): this {
    this.#wrappers.set(option, { wrap, usage, keys, outermost });
    return this;
  }

  /**
   * Rewrites a kind's spec value before anything parses it: a name the kind knows becomes what it names, with
   * the options that go with it (`local=qwen2.5-coder-1.5b-instruct` → the cached file and its measured settings).
   * What the spec gives explicitly must win over what the expansion adds.
   */
  expand(kind: string, expand: (value: string) => string): this {
    this.#expanders.set(kind, expand);
    return this;
  }

  /** The registered kinds with their usage lines (for help texts). */
  kinds(): { kind: string; usage: string }[] {
    return [...this.#factories].map(([kind, { usage }]) => ({ kind, usage }));
  }

  /** The registered spec options every kind accepts, with their usage lines. */
  wrappers(): { option: string; usage: string }[] {
    return [...this.#wrappers].map(([option, { usage }]) => ({ option, usage }));
  }

  /**
   * What a spec names, without building anything: its kind, and its value expanded by the kind (a catalogued
   * model's name becomes the cached file; a distilled model's trust file beside it becomes `trust=…`) and split.
   * An unknown kind is an {@link InvalidOptionError}.
   */
  resolve(spec: string): ResolvedSpec {
    const eq = spec.indexOf("=");
    const kind = eq > 0 ? spec.slice(0, eq) : spec;
    if (!this.#factories.has(kind) || eq <= 0 || eq === spec.length - 1) {
      const known = this.kinds()
        .map((k) => k.usage)
        .join(", ");
      throw new InvalidOptionError("--delegate", `one of ${known}`, spec);
    }
    const given = spec.slice(eq + 1);
    const value = this.#expanders.get(kind)?.(given) ?? given;
    return { kind, value, ...parseSpecValue(value) };
  }

  /** Builds a delegate backend from a `--delegate` spec, `KIND=VALUE[,OPTION=…]`, with the registered kinds. */
  async create(spec: string): Promise<ToolCallDelegate> {
    const target = this.resolve(spec);
    const { kind, value, main, options } = target;
    const entry = this.#factories.get(kind)!;
    const outer = (k: string) => (this.#wrappers.get(k)!.outermost ? 1 : 0);
    const wrapping = Object.keys(options)
      .filter((k) => this.#wrappers.has(k))
      .sort((a, b) => outer(a) - outer(b));
    if (wrapping.length === 0) return entry.factory(value);
    // The kind's own options, without the wrappers' (a factory refuses what it does not know, or ignores it).
    const own = Object.entries(options).filter(([k]) => !this.#wrapperKey(k));
    let delegate = await entry.factory(
      main +
        own
          .reverse()
          .map(([k, v]) => `,${k}=${v}`)
          .join(""),
    );
    try {
      for (const option of wrapping) {
        const { wrap, keys } = this.#wrappers.get(option)!;
        const further = Object.fromEntries(
          keys.flatMap((k) => (options[k] === undefined ? [] : [[k, options[k]!]])),
        );
        delegate = await wrap(delegate, options[option]!, spec, further, target);
      }
    } catch (error) {
      await delegate.close();
      throw error;
    }
    return delegate;
  }

  /** Whether a spec option belongs to a wrapper (its own key or one of its further keys), not to the kind. */
  #wrapperKey(key: string): boolean {
    for (const [option, { keys }] of this.#wrappers) if (option === key || keys.includes(key)) return true;
    return false;
  }
}

/**
 * Splits a spec value into its main part and `,key=value` options: `runs/p.jsonl,name=replay,maxTools=8` →
 * `{ main: "runs/p.jsonl", options: { name: "replay", maxTools: "8" } }`. A comma not followed by `key=` stays in
 * the main part.
 */
export function parseSpecValue(value: string): { main: string; options: Record<string, string> } {
  const options: Record<string, string> = {};
  let main = value;
  const re = /,([A-Za-z][A-Za-z0-9_-]*)=([^,]*)$/;
  for (let m = re.exec(main); m; m = re.exec(main)) {
    options[m[1]!] = m[2]!;
    main = main.slice(0, m.index);
  }
  return { main, options };
}

/** Reads a numeric spec option, failing clearly on anything else. */
export function numberOption(options: Record<string, string>, key: string, spec: string): number | undefined {
  const raw = options[key];
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0)
    throw new InvalidOptionError(`${key} in --delegate ${spec}`, "a positive number", raw);
  return n;
}

/**
 * Adds the built-in `scripted=FILE[,name=N,maxTools=N,maxInputChars=N]` kind to a registry: a
 * {@link ScriptedDelegate} replaying a JSONL file.
 */
export function registerScriptedSpec(registry: DelegateSpecRegistry): DelegateSpecRegistry {
  return registry.register(
    "scripted",
    (value) => {
      const { main, options } = parseSpecValue(value);
      const spec = `scripted=${value}`;
      const maxTools = numberOption(options, "maxTools", spec);
      const maxInputChars = numberOption(options, "maxInputChars", spec);
      return new ScriptedDelegate({
        entries: main,
        ...(options.name ? { name: options.name } : {}),
        ...(maxTools ? { maxTools } : {}),
        ...(maxInputChars ? { maxInputChars } : {}),
      });
    },
    "scripted=FILE[,name=N,maxTools=N,maxInputChars=N]",
  );
}
