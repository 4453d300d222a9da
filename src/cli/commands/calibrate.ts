import { existsSync, readFileSync, writeFileSync } from "node:fs";
import type { Command } from "commander";
import { CONFIDENCE_METHODS, type ConfidenceMethod } from "../../confidence/answer-confidence.js";
import { InvalidOptionError } from "../../errors/index.js";
import { fitDelegateCalibration, type LabelledProposal } from "../../confidence/fit-calibration.js";
import type { CliContext } from "../cli-context.js";
import { EXIT } from "../exit-codes.js";

/**
 * `deputy calibrate --records FILE… --model NAME --out FILE [--target-precision P]`: fits a per-model calibration
 * of an LLM delegate's confidence on labelled proposals (the JSON lines `deputy eval --records` writes) and
 * prints its cross-validated quality and recommended `min_confidence`. Use it with `calibration=FILE` in a
 * `local=` or `llama-server=` delegate spec.
 */
export function registerCalibrate(program: Command, ctx: CliContext): void {
  program
    .command("calibrate")
    .description("fit a per-model confidence calibration on labelled proposals (deputy eval --records)")
    .requiredOption("--records <files...>", "JSON lines with confidence, meanTokenProbability and correct")
    .requiredOption("--model <name>", "the model the proposals came from (stored in the file)")
    .requiredOption("--out <file>", "where to write the calibration JSON")
    .option("--target-precision <p>", "precision the recommended min_confidence must reach", "0.95")
    .option("--confidence-method <m>", "the confidence method the records were scored with", "answer")
    .option(
      "--with-context",
      "also read the number of candidate tools and the share of argument values found verbatim in the question",
    )
    .action(
      (flags: {
        records: string[];
        model: string;
        out: string;
        targetPrecision: string;
        confidenceMethod: string;
        withContext?: boolean;
      }) => {
        if (!(CONFIDENCE_METHODS as readonly string[]).includes(flags.confidenceMethod)) {
          throw new InvalidOptionError("--confidence-method", "answer or choice", flags.confidenceMethod);
        }
        const target = Number(flags.targetPrecision);
        if (!(target > 0 && target <= 1)) {
          throw new InvalidOptionError("--target-precision", "a number in (0, 1]", flags.targetPrecision);
        }
        const records: LabelledProposal[] = [];
        for (const file of flags.records) {
          if (!existsSync(file))
            throw new InvalidOptionError("--records", "an existing JSON lines file", file);
          readFileSync(file, "utf8")
            .split("\n")
            .forEach((line, i) => {
              if (line.trim() === "") return;
              let r: unknown;
              try {
                r = JSON.parse(line);
              } catch {
                throw new InvalidOptionError("--records", `JSON on every line (${file}:${i + 1})`, line);
              }
              const rec = r as LabelledProposal & { outcome?: string };
              if (typeof rec?.correct !== "boolean") {
                throw new InvalidOptionError(
                  "--records",
                  `a "correct" flag on every line (${file}:${i + 1})`,
                  line,
                );
              }
              if (rec.outcome === undefined || rec.outcome === "proposed") records.push(rec);
            });
        }
        const file = fitDelegateCalibration(records, {
          model: flags.model,
          targetPrecision: target,
          confidenceMethod: flags.confidenceMethod as ConfidenceMethod,
          withContext: flags.withContext === true,
        });
        writeFileSync(flags.out, JSON.stringify(file, null, 2) + "\n");
        const cv = file.crossValidated;
        ctx.stdout(
          [
            `calibration for ${file.model} fitted on ${file.fittedOn} proposals → ${flags.out}`,
            `cross-validated (${cv.folds} folds): AUROC ${cv.auroc?.toFixed(3) ?? "-"}, ECE ${cv.ece.toFixed(3)}`,
            file.recommendedMinConfidence < 1
              ? `min_confidence ${file.recommendedMinConfidence} accepts ${(cv.coverage * 100).toFixed(0)}% at ${((cv.precision ?? 0) * 100).toFixed(0)}% precision (target ${target * 100}%)`
              : `no threshold reaches ${target * 100}% precision: recommended min_confidence 1 (accept nothing)`,
          ].join("\n") + "\n",
        );
        ctx.setExitCode(EXIT.completed);
      },
    );
}
